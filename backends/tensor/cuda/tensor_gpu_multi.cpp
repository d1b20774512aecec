#include "backends/tensor/cuda/tensor_gpu_multi.h"

#include "backends/cuda/nccl.h"
#include "backends/tensor/cuda/narrow_costs.h"
#include "backends/tensor/cuda/op_launch.h"
#include "backends/tensor/cuda/op_profile.h"
#include "backends/tensor/cuda/tensor_modules.h"
#include "backends/tensor/cuda/value_phase_gpu.h"
#include "ir/try.h"
#include "support/timer.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>

namespace zbddc::cuda {

namespace {

constexpr size_t kStreams = 4; // per logical device: a level's ops overlap on them

// What a logical device keeps from one run to the next: its streams and pinned staging (creating
// the one and pinning the other took milliseconds of a solve of a few). Free lists per GPU, for
// the whole process (never destroyed, as devices are not).
struct SliceResources {
    std::vector<StreamHandle> streams;
    PinnedBuffer staging;
};
std::mutex resourcesMutex;
std::map<Device *, std::vector<SliceResources>> &freeResources() {
    static auto *lists = new std::map<Device *, std::vector<SliceResources>>;
    return *lists;
}
SliceResources takeResources(Device &d) {
    std::lock_guard lock(resourcesMutex);
    std::vector<SliceResources> &list = freeResources()[&d];
    if (list.empty())
        return {};
    SliceResources r = std::move(list.back());
    list.pop_back();
    return r;
}
void giveResources(Device &d, SliceResources r) {
    std::lock_guard lock(resourcesMutex);
    freeResources()[&d].push_back(std::move(r));
}

// One logical device: a GPU's context shared, streams, kernels and tables of its own, of doubles
// or of floats (options.kernels.float32: the host's doubles converted on the way, exactly).
class GpuSliceDevice final : public SliceDevice {
  public:
    GpuSliceDevice(Device &d, const TensorProgram &p, const GpuExecOptions &o)
        : d_(d), p_(p), options_(o), tables_(p.tables.size()), held_(p.tables.size()),
          entryBytes_(o.kernels.float32 ? sizeof(float) : sizeof(double)), kept_(takeResources(d)),
          streams_(kept_.streams), staging_(kept_.staging) {}
    // Waited for first (a failed run may leave work in flight), so the next run's tables and
    // staging are its own.
    ~GpuSliceDevice() override {
        for (StreamHandle s : streams_)
            (void)d_.synchronize(s);
        giveResources(d_, std::move(kept_));
    }

    // `modules`: the program's kernels loaded on this device's GPU.
    Status open(TensorModules modules) {
        modules_ = std::move(modules);
        while (streams_.size() < kStreams) {
            auto s = d_.createStream();
            if (!s)
                return s.error();
            streams_.push_back(*s);
        }
        return Ok{};
    }

    Status reserve(uint32_t t, RowSpan rows) override {
        const RowSpan old = held_[t];
        if (old.rows && rows == old)
            return Ok{};
        if (!rows.contains(old))
            return error("internal error: a reserve of table " + std::to_string(t) +
                         " drops rows the device holds");
        auto buf = d_.allocate(std::max<uint64_t>(rows.rows, 1) * entryBytes_);
        if (!buf)
            return buf.error();
        if (old.rows) { // the rows held so far move into the larger range
            ZBDDC_TRY(d_.copy(buf->ptr() + (old.first - rows.first) * entryBytes_, tables_[t].ptr(),
                              old.rows * entryBytes_, streams_[0]));
            ZBDDC_TRY(d_.synchronize(streams_[0]));
        }
        tables_[t] = std::move(*buf);
        held_[t] = rows;
        return Ok{};
    }
    Status release(uint32_t t) override {
        tables_[t] = DeviceBuffer{}; // back to the pool
        held_[t] = {};
        return Ok{};
    }
    // Enqueued on the copy stream from pinned staging (converted to floats there where the tables
    // are floats): a level's uploads cost one wait, before its kernels (settle).
    Status upload(uint32_t t, uint64_t first, std::span<const double> v) override {
        auto staged = stage(v.size() * entryBytes_);
        if (!staged)
            return staged.error();
        if (options_.kernels.float32)
            std::copy(v.begin(), v.end(), reinterpret_cast<float *>(*staged));
        else
            std::copy(v.begin(), v.end(), reinterpret_cast<double *>(*staged));
        return d_.upload(address(t, first), *staged, v.size() * entryBytes_, streams_[0]);
    }
    Status download(uint32_t t, uint64_t first, std::span<double> v) override {
        ZBDDC_TRY(settle());
        if (!options_.kernels.float32)
            return d_.download(v.data(), address(t, first), v.size() * sizeof(double));
        std::vector<float> narrow(v.size());
        ZBDDC_TRY(d_.download(narrow.data(), address(t, first), narrow.size() * sizeof(float)));
        std::copy(narrow.begin(), narrow.end(), v.begin());
        return Ok{};
    }
    // The tasks' input lists in one array, staged with the level's uploads, all waited for once
    // before any kernel is enqueued.
    Status launch(std::span<const DeviceTask> tasks) override {
        std::vector<DevicePtr> bases;
        std::vector<size_t> listAt;
        for (const DeviceTask &task : tasks) {
            listAt.push_back(bases.size());
            for (uint32_t in : p_.ops[task.op].inputs) // whole-table offsets: the held range's
                bases.push_back(tables_[in].ptr() - held_[in].first * entryBytes_); // row 0
        }
        const size_t listBytes = std::max<size_t>(bases.size(), 1) * sizeof(DevicePtr);
        auto lists = d_.allocate(listBytes);
        if (!lists)
            return lists.error();
        lists_ = std::move(*lists);
        auto staged = stage(listBytes);
        if (!staged)
            return staged.error();
        std::copy(bases.begin(), bases.end(), reinterpret_cast<DevicePtr *>(*staged));
        ZBDDC_TRY(d_.upload(lists_.ptr(), *staged, listBytes, streams_[0]));
        ZBDDC_TRY(settle());
        for (size_t i = 0; i < tasks.size(); ++i) {
            const DeviceTask &task = tasks[i];
            ZBDDC_TRY(launchOpRows(d_, modules_, p_, task.op, options_.kernels, options_.chunkRows,
                                   lists_.ptr() + listAt[i] * sizeof(DevicePtr),
                                   address(p_.ops[task.op].output, task.out.first), task.out.first,
                                   task.out.rows, streams_[i % streams_.size()]));
        }
        return Ok{};
    }
    Status wait() override {
        for (StreamHandle s : streams_)
            ZBDDC_TRY(d_.synchronize(s));
        staged_ = 0;
        return Ok{};
    }

    DevicePtr address(uint32_t t, uint64_t row) const {
        return tables_[t].ptr() + (row - held_[t].first) * entryBytes_;
    }
    uint64_t entryBytes() const { return entryBytes_; }
    Device &device() const { return d_; }
    StreamHandle copyStream() const { return streams_[0]; }

  private:
    // `bytes` of pinned staging for an async upload, valid until the copy stream is waited for.
    Result<unsigned char *> stage(size_t bytes) {
        if (staged_ + bytes > staging_.bytes()) {
            ZBDDC_TRY(settle()); // nothing staged is in flight: the buffer may be reused or go
            staged_ = 0;
        }
        if (bytes > staging_.bytes()) {
            auto grown =
                d_.allocatePinned(std::max(bytes, 2 * staging_.bytes() + (size_t{1} << 20)));
            if (!grown)
                return grown.error();
            staging_ = std::move(*grown);
        }
        unsigned char *at = staging_.data() + staged_;
        staged_ += (bytes + 15) / 16 * 16;
        return at;
    }
    // The copies enqueued on the copy stream are done.
    Status settle() { return d_.synchronize(streams_[0]); }

    Device &d_;
    const TensorProgram &p_;
    GpuExecOptions options_;
    TensorModules modules_;
    std::vector<DeviceBuffer> tables_; // by table: the rows held_ says
    std::vector<RowSpan> held_;
    DeviceBuffer lists_; // the input lists of the tasks in flight
    uint64_t entryBytes_;
    SliceResources kept_;
    std::vector<StreamHandle> &streams_; // kept_'s
    PinnedBuffer &staging_;              // kept_'s
    size_t staged_ = 0;                  // bytes of staging_ in use since the last wait
};

// Rows between logical devices: a copy within one GPU, NCCL or a peer copy between GPUs.
class GpuFabric final : public DeviceFabric {
  public:
    GpuFabric(std::vector<std::unique_ptr<GpuSliceDevice>> &devices, std::span<const int> ordinals,
              NcclComms *nccl, std::map<int, int> rankOf)
        : devices_(devices), ordinals_(ordinals), nccl_(nccl), rankOf_(std::move(rankOf)) {}

    Status copy(std::span<const TableMove> moves) override {
        std::vector<PeerTransfer> viaNccl;
        for (const TableMove &m : moves) {
            GpuSliceDevice &from = *devices_[static_cast<size_t>(m.from)];
            GpuSliceDevice &to = *devices_[static_cast<size_t>(m.to)];
            const DevicePtr src = from.address(m.table, m.rows.first);
            const DevicePtr dst = to.address(m.table, m.rows.first);
            const size_t bytes = m.rows.rows * from.entryBytes();
            const int a = ordinals_[static_cast<size_t>(m.from)];
            const int b = ordinals_[static_cast<size_t>(m.to)];
            if (a == b)
                ZBDDC_TRY(to.device().copy(dst, src, bytes, to.copyStream()));
            else if (nccl_)
                viaNccl.push_back({rankOf_.at(a), rankOf_.at(b), src, dst, bytes, from.copyStream(),
                                   to.copyStream()});
            else
                ZBDDC_TRY(
                    to.device().copyFromPeer(from.device(), dst, src, bytes, to.copyStream()));
        }
        if (!viaNccl.empty())
            ZBDDC_TRY(nccl_->transfer(viaNccl));
        for (auto &d : devices_)
            ZBDDC_TRY(d->device().synchronize(d->copyStream()));
        return Ok{};
    }

  private:
    std::vector<std::unique_ptr<GpuSliceDevice>> &devices_;
    std::span<const int> ordinals_;
    NcclComms *nccl_;
    std::map<int, int> rankOf_; // GPU ordinal -> NCCL rank
};

// Bytes of tables one logical device may hold: `fraction` of its GPU's free memory (the pool's
// idle blocks counted), shared by the logical devices on that GPU; the least over the GPUs.
Result<uint64_t> deviceBudget(std::span<const int> ordinals, double fraction) {
    uint64_t least = UINT64_MAX;
    for (int o : ordinals) {
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
    MultiDevicePlan plan;
    NcclComms *nccl = nullptr; // the process's, for these GPUs
    std::vector<std::unique_ptr<GpuSliceDevice>> devices;
    std::vector<SliceDevice *> view;
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
    if (Status s = program.verify(); !s)
        return s.error();
    // Slices by output variables would cut a message's normalisation group.
    if (Status s = refuseMessageOps(program, "the multi-GPU executor"); !s)
        return s.error();
    st.ordinals.assign(ordinals.begin(), ordinals.end());
    options.kernels.float32 = useFloatTables(program, options.narrowCosts);
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
    for (uint32_t o = 0; o < program.ops.size(); ++o) // a share reads its row groups whole
        planned.rowGroupSpan.push_back(rowGroupOf(program, o, options.kernels).span());
    planned.keepForDecode = keepForDecode;
    if (!planned.deviceBudgetBytes) { // a share of the GPU whose logical devices have least room
        auto budget = deviceBudget(ordinals, options.memoryFraction);
        if (!budget)
            return budget.error();
        planned.deviceBudgetBytes = *budget;
    }
    st.deviceBudgetBytes = planned.deviceBudgetBytes;
    auto run = std::make_unique<MultiGpuRun>();
    auto plan = planMultiDevice(program, static_cast<uint32_t>(ordinals.size()), planned);
    if (!plan)
        return plan.error();
    run->plan = std::move(*plan);
    st.slicedOps = run->plan.slicedOps;
    st.uploadBytes = run->plan.uploadBytes;
    st.peerBytes = run->plan.peerBytes;
    st.downloadBytes = run->plan.downloadBytes;
    st.work = run->plan.work;
    for (uint32_t o = 0; o < program.ops.size(); ++o)
        st.tableBytes += opTableBytes(program, o, planned.entryBytes);

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
            st.nccl = true;
            st.transport = "NCCL " + ncclVersion() + " between GPUs";
        }
    }

    // Each GPU's modules loaded at once; its logical devices share them.
    const auto t0 = std::chrono::steady_clock::now();
    auto modules = TensorModules::compile(gpus, program, options.kernels);
    if (!modules)
        return modules.error();
    for (int o : ordinals) {
        const size_t g = static_cast<size_t>(rankOf.at(o));
        run->devices.push_back(std::make_unique<GpuSliceDevice>(*gpus[g], program, options));
        ZBDDC_TRY(run->devices.back()->open((*modules)[g]));
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
    auto run = openRun(program, ordinals, planOptions, options, false, st);
    if (!run)
        return run.error();
    return runTensorProgramMultiDevice(program, (*run)->plan, (*run)->view, *(*run)->fabric,
                                       &st.times);
}

Result<double> solveTensorProgramMultiGpu(const TensorProgram &program,
                                          std::span<const int> ordinals,
                                          std::vector<uint32_t> &assignment,
                                          const MultiDeviceOptions &planOptions,
                                          const GpuExecOptions &options, MultiGpuStats *stats) {
    MultiGpuStats local;
    MultiGpuStats &st = stats ? *stats : local;
    auto opened = openRun(program, ordinals, planOptions, options, true, st);
    if (!opened)
        return opened.error();
    MultiGpuRun &run = **opened;
    if (auto computed =
            runTensorProgramMultiDevice(program, run.plan, run.view, *run.fabric, &st.times);
        !computed)
        return computed.error();
    // The VALUE phase on the first device, reading every table where it was computed.
    const auto t0 = std::chrono::steady_clock::now();
    Device &home = run.devices[0]->device();
    for (const auto &d : run.devices)
        ZBDDC_TRY(home.enablePeerAccess(d->device()));
    std::vector<TableSegment> segments;
    for (const TableHolding &h : decodeHoldings(program, run.plan))
        segments.push_back({h.table, h.rows.first, h.rows.rows,
                            run.devices[h.device]->address(h.table, h.rows.first)});
    auto optimum = decodeOnDevice(home, program, std::move(segments), assignment, st.float32);
    st.valueMs = msSince(t0);
    return optimum;
}

} // namespace zbddc::cuda
