#include "backends/tensor/cuda/run/tensor_gpu_multi.h"

#include "backends/cuda/nccl.h"
#include "backends/tensor/cuda/plan/chunk_layout.h"
#include "backends/tensor/cuda/device/gpu_tensor_device.h"
#include "backends/tensor/cuda/plan/narrow_costs.h"
#include "backends/tensor/cuda/device/op_launch.h"
#include "backends/tensor/cuda/device/op_profile.h"
#include "backends/tensor/cuda/plan/slice_layout.h"
#include "backends/tensor/cuda/codegen/tensor_modules.h"
#include "backends/tensor/cuda/run/value_phase_gpu.h"
#include "ir/try.h"
#include "support/timer.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>

namespace zbddc::cuda {

namespace {

// Rows between logical devices: a copy within one GPU, NCCL or a peer copy between GPUs, each on
// the destination's entry stream after the source's `ready` event (NCCL: the send on the source's
// entry stream, the receive on the destination's, ordered by them).
class GpuFabric final : public DeviceFabric {
  public:
    GpuFabric(std::vector<std::unique_ptr<GpuTensorDevice>> &devices, std::span<const int> ordinals,
              NcclComms *nccl, std::map<int, int> rankOf)
        : devices_(devices), ordinals_(ordinals), nccl_(nccl), rankOf_(std::move(rankOf)) {}

    Status enqueue(std::span<const TableMove> moves) override {
        std::vector<PeerTransfer> viaNccl;
        std::set<std::pair<int, int>> waited; // (from, to): the destination waits once
        for (const TableMove &m : moves) {
            GpuTensorDevice &from = *devices_[static_cast<size_t>(m.from)];
            GpuTensorDevice &to = *devices_[static_cast<size_t>(m.to)];
            const DevicePtr src = from.address(m.table, m.rows.first);
            const DevicePtr dst = to.address(m.table, m.rows.first);
            const size_t bytes = m.rows.rows * from.entryBytes();
            const int a = ordinals_[static_cast<size_t>(m.from)];
            const int b = ordinals_[static_cast<size_t>(m.to)];
            if (a != b && nccl_) {
                viaNccl.push_back({rankOf_.at(a), rankOf_.at(b), src, dst, bytes, from.copyStream(),
                                   to.copyStream()});
                continue;
            }
            if (waited.insert({m.from, m.to}).second)
                ZBDDC_TRY(from.awaitedBy(to));
            if (a == b)
                ZBDDC_TRY(to.device().copy(dst, src, bytes, to.copyStream()));
            else
                ZBDDC_TRY(
                    to.device().copyFromPeer(from.device(), dst, src, bytes, to.copyStream()));
        }
        if (!viaNccl.empty())
            ZBDDC_TRY(nccl_->transfer(viaNccl));
        return Ok{};
    }
    Status copy(std::span<const TableMove> moves) override {
        ZBDDC_TRY(enqueue(moves));
        for (auto &d : devices_)
            ZBDDC_TRY(d->device().synchronize(d->copyStream()));
        return Ok{};
    }

  private:
    std::vector<std::unique_ptr<GpuTensorDevice>> &devices_;
    std::span<const int> ordinals_;
    NcclComms *nccl_;
    std::map<int, int> rankOf_; // GPU ordinal -> NCCL rank
};

// Bytes of tables one logical device may hold: `fraction` of its GPU's free memory (the pool's
// idle blocks counted), shared by the logical devices on that GPU; the least over the GPUs.
Result<uint64_t> deviceBudget(std::span<const int> ordinals, double fraction) {
    uint64_t least = UINT64_MAX;
    for (size_t i = 0; i < ordinals.size(); ++i) {
        const int o = ordinals[i];
        if (std::find(ordinals.begin(), ordinals.begin() + i, o) != ordinals.begin() + i)
            continue; // a GPU's logical devices share its one answer
        auto d = openDevice(o);
        if (!d)
            return d.error();
        auto memory = (*d)->memoryInfo();
        if (!memory)
            return memory.error();
        const auto shares = static_cast<double>(std::count(ordinals.begin(), ordinals.end(), o));
        least = std::min(
            least,
            static_cast<uint64_t>(
                fraction * static_cast<double>(memory->freeBytes + memory->pooledBytes) / shares));
    }
    return least;
}

// The logical devices, the fabric between them and the plan of one run.
struct MultiGpuRun {
    std::optional<TensorProgram> relaid; // the program with slice_layout.h's layouts, if any
    const TensorProgram *ran = nullptr;  // relaid, else the caller's
    MultiDevicePlan plan;
    bool ordered = false;      // multi_device_run.h: every widest range fits its device to the end
    NcclComms *nccl = nullptr; // the process's, for these GPUs
    std::vector<std::unique_ptr<GpuTensorDevice>> devices;
    std::vector<TensorDevice *> view;
    std::unique_ptr<GpuFabric> fabric;
};

// Tables as floats where exact (narrow_costs.h); `keepForDecode` as the plan's.
Result<std::unique_ptr<MultiGpuRun>> openRun(const TensorProgram &program,
                                             std::span<const int> ordinals,
                                             const MultiDeviceOptions &planOptions,
                                             GpuExecOptions options, bool keepForDecode,
                                             MultiGpuStats &st) {
    if (ordinals.empty())
        return error("internal error: a multi-GPU run with no device");
    const auto planned0 = std::chrono::steady_clock::now();
    ZBDDC_TRY(program.verify());
    // Slices by output variables would cut a message's normalisation group.
    ZBDDC_TRY(refuseMessageOps(program, "the multi-GPU executor"));
    st.ordinals.assign(ordinals.begin(), ordinals.end());
    options.kernels.float32 = useFloatTables(program, options.switches.narrowCosts);
    st.float32 = options.kernels.float32;
    if (!options.kernels.streamingStoreMinBytes) { // the hosts' GPUs are taken to be alike
        auto info = deviceInfo(ordinals[0]);
        if (!info)
            return info.error();
        options.kernels.streamingStoreMinBytes = streamingStoreMinBytes(*info);
    }
    // Inputs the kernels stage whole in shared memory must be whole on every device.
    MultiDeviceOptions planned = planOptions;
    planned.wholeInputMaxEntries =
        std::max<uint64_t>(planned.wholeInputMaxEntries, options.kernels.sharedInputMaxEntries);
    planned.entryBytes = st.float32 ? sizeof(float) : sizeof(double);
    planned.keepForDecode = keepForDecode;
    if (!planned.deviceBudgetBytes) { // a share of the GPU whose logical devices have least room
        auto budget = deviceBudget(ordinals, options.memoryFraction);
        if (!budget)
            return budget.error();
        planned.deviceBudgetBytes = *budget;
    }
    st.deviceBudgetBytes = planned.deviceBudgetBytes;
    auto run = std::make_unique<MultiGpuRun>();
    const auto devices = static_cast<uint32_t>(ordinals.size());
    const PlanFor planFor = [&](const TensorProgram &p) {
        MultiDeviceOptions o = planned;
        for (uint32_t op = 0; op < p.ops.size(); ++op) // a share reads its row groups whole
            o.rowGroupSpan.push_back(rowGroupOf(p, op, options.kernels).span());
        return planMultiDevice(p, devices, o);
    };
    // Sliced chains kept on their devices where that moves fewer rows (slice_layout.h).
    auto plan = planned.keepLayouts
                    ? planFor(program)
                    : planWithSliceLayouts(program, devices, planned, planFor, run->relaid);
    if (!plan)
        return plan.error();
    run->ran = run->relaid ? &*run->relaid : &program;
    const TensorProgram &ran = *run->ran;
    st.relaidOutputs = 0;
    for (size_t t = 0; t < program.tables.size(); ++t)
        st.relaidOutputs += ran.tables[t].scope != program.tables[t].scope;
    run->plan = std::move(*plan);
    run->ordered = !planned.levelByLevel &&
                   std::all_of(run->plan.heldToEndBytes.begin(), run->plan.heldToEndBytes.end(),
                               [&](uint64_t b) { return b <= planned.deviceBudgetBytes; });
    st.slicedOps = run->plan.slicedOps;
    st.uploadBytes = run->plan.uploadBytes;
    st.peerBytes = run->plan.peerBytes;
    st.downloadBytes = run->plan.downloadBytes;
    st.work = run->plan.work;
    for (uint32_t o = 0; o < ran.ops.size(); ++o)
        st.tableBytes += opTableBytes(ran, o, planned.entryBytes);

    // Distinct GPUs, each an NCCL rank where NCCL is there and there are two GPUs or more.
    std::map<int, int> rankOf;
    std::vector<int> distinct;
    std::vector<Device *> gpus; // by rank
    st.gpus.clear();
    for (int o : ordinals)
        if (rankOf.emplace(o, static_cast<int>(distinct.size())).second) {
            distinct.push_back(o);
            auto d = openDevice(o);
            if (!d)
                return d.error();
            gpus.push_back(*d);
            st.gpus += (st.gpus.empty() ? "" : ", ") + (*d)->info().label();
        }
    if (distinct.size() == 1) {
        st.transport = "device-to-device copies (" + std::to_string(ordinals.size()) +
                       " logical devices on one GPU)";
    } else if (Status usable = ncclAvailable(); !usable) {
        st.transport = "peer copies (" + usable.error().message + ")";
    } else {
        auto comms = NcclComms::shared(distinct);
        if (!comms) {
            st.transport = "peer copies (" + comms.error().message + ")";
        } else {
            run->nccl = *comms;
            st.transport = "NCCL " + ncclVersion() + " between GPUs";
        }
    }

    st.planMs = msSince(planned0);
    // Each GPU's modules loaded at once; its logical devices share them. An ordered run fuses a
    // level's small whole ops as one GPU does (GpuTensorDevice::prepareLevels).
    options.kernels.fusedEntries = run->ordered;
    const GpuDeviceOptions deviceOptions{options.kernels, options.chunkRows, 4, false};
    const auto t0 = std::chrono::steady_clock::now();
    auto modules = TensorModules::compile(gpus, ran, options.kernels);
    if (!modules)
        return modules.error();
    for (int o : ordinals) {
        const size_t g = static_cast<size_t>(rankOf.at(o));
        auto device = GpuTensorDevice::open(*gpus[g], ran, deviceOptions, (*modules)[g]);
        if (!device)
            return device.error();
        run->devices.push_back(std::move(*device));
        run->view.push_back(run->devices.back().get());
    }
    st.compileMs = msSince(t0);
    run->fabric = std::make_unique<GpuFabric>(run->devices, ordinals, run->nccl, rankOf);
    return run;
}

} // namespace

Result<std::vector<std::vector<double>>>
runTensorProgramMultiGpu(const TensorProgram &program, std::span<const int> ordinals,
                         const MultiDeviceOptions &planOptions, const GpuExecOptions &options,
                         MultiGpuStats *stats) {
    MultiGpuStats local;
    MultiGpuStats &st = stats ? *stats : local;
    auto opened = openRun(program, ordinals, planOptions, options, false, st);
    if (!opened)
        return opened.error();
    const MultiGpuRun &run = **opened;
    auto computed = runTensorProgramMultiDevice(*run.ran, run.plan, run.view, *run.fabric,
                                                &st.times, run.ordered);
    if (computed && run.relaid) // in the caller's layouts
        restoreLayouts(program, *run.relaid, *computed);
    return computed;
}

Result<double>
solveTensorProgramMultiGpu(const TensorProgram &program, std::span<const int> ordinals,
                           std::vector<uint32_t> &assignment, const MultiDeviceOptions &planOptions,
                           const GpuExecOptions &options, MultiGpuStats *stats, bool *tied) {
    MultiGpuStats local;
    MultiGpuStats &st = stats ? *stats : local;
    auto opened = openRun(program, ordinals, planOptions, options, true, st);
    if (!opened)
        return opened.error();
    MultiGpuRun &run = **opened;
    // The VALUE phase on the first device, reading every table where it was computed: in an
    // ordered run enqueued behind every device's last level, its plan built while they run. It
    // reads tables through their scopes, so the program that ran picks the same values.
    const TensorProgram &ran = *run.ran;
    double optimum = 0;
    const BeforeWait decode = [&]() -> Status {
        GpuTensorDevice &first = *run.devices[0];
        Device &home = first.device();
        for (const auto &d : run.devices) {
            ZBDDC_TRY(home.enablePeerAccess(d->device()));
            if (d.get() != &first)
                ZBDDC_TRY(d->awaitedBy(first));
        }
        std::vector<TableSegment> segments;
        for (const TableHolding &h : decodeHoldings(ran, run.plan))
            segments.push_back({h.table, h.rows.first, h.rows.rows,
                                run.devices[h.device]->address(h.table, h.rows.first)});
        auto decoded = decodeOnDevice(home, ran, std::move(segments), assignment, st.float32,
                                      first.copyStream(), &st.valueMs, tied);
        if (!decoded)
            return decoded.error();
        optimum = *decoded;
        return Ok{};
    };
    if (auto computed = runTensorProgramMultiDevice(ran, run.plan, run.view, *run.fabric, &st.times,
                                                    run.ordered, decode);
        !computed)
        return computed.error();
    st.times.computeMs -= st.valueMs; // the device's time after the last level's kernels
    return optimum;
}

} // namespace zbddc::cuda
