#include "backends/tensor/cuda/run/tensor_gpu_multi.h"

#include "backends/cuda/nccl.h"
#include "backends/tensor/cuda/plan/chunk_layout.h"
#include "backends/tensor/cuda/device/fused_launch.h"
#include "backends/tensor/cuda/device/level_launch.h"
#include "backends/tensor/cuda/plan/narrow_costs.h"
#include "backends/tensor/cuda/device/op_launch.h"
#include "backends/tensor/cuda/device/op_profile.h"
#include "backends/tensor/cuda/device/packed_inputs.h"
#include "backends/tensor/cuda/plan/slice_layout.h"
#include "backends/tensor/cuda/codegen/tensor_modules.h"
#include "backends/tensor/cuda/run/value_phase_gpu.h"
#include "ir/try.h"
#include "support/timer.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>

namespace zbddc::cuda {

namespace {

constexpr size_t kStreams = 4; // per logical device: a level's ops overlap on them

// What a logical device keeps from one run to the next: its streams (a launcher's), the event
// other devices' copies wait on, and pinned staging (creating the streams and pinning took
// milliseconds of a solve of a few). Free lists per GPU, for the whole process (never destroyed,
// as devices are not).
struct SliceResources {
    std::unique_ptr<LevelLauncher> launcher;
    EventHandle ready = nullptr;
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
// or of floats (options.kernels.float32: the host's doubles converted on the way, exactly). Its
// work is ordered on its launcher's entry stream: uploads and incoming copies there, each level
// forked from it onto the other streams and joined back, `ready` recorded after it for the copies
// other devices make of what it computed.
class GpuTensorDevice final : public TensorDevice {
  public:
    GpuTensorDevice(Device &d, const TensorProgram &p, const GpuExecOptions &o)
        : d_(d), p_(p), options_(o), at_(p.tables.size(), 0), owned_(p.tables.size()),
          held_(p.tables.size()), entryBytes_(o.kernels.float32 ? sizeof(float) : sizeof(double)),
          kept_(takeResources(d)) {
        if (!kept_.launcher)
            kept_.launcher = std::make_unique<LevelLauncher>(d);
    }
    // Waited for first (a failed run may leave work in flight), so the next run's tables and
    // staging are its own.
    ~GpuTensorDevice() override {
        (void)kept_.launcher->synchronizeAll();
        giveResources(d_, std::move(kept_));
    }

    // `modules`: the program's kernels loaded on this device's GPU.
    Status open(TensorModules modules) {
        modules_ = std::move(modules);
        auto entry = kept_.launcher->entry(kStreams);
        if (!entry)
            return entry.error();
        entry_ = *entry;
        if (!kept_.ready) {
            auto e = d_.createEvent(false);
            if (!e)
                return e.error();
            kept_.ready = *e;
        }
        return Ok{};
    }

    Status reserve(uint32_t t, RowSpan rows) override {
        const RowSpan old = held_[t];
        if (old.rows && old.contains(rows)) // an ordered run holds every widest range already
            return Ok{};
        if (!rows.contains(old))
            return error("internal error: a reserve of table " + std::to_string(t) +
                         " drops rows the device holds");
        auto buf = d_.allocate(std::max<uint64_t>(rows.rows, 1) * entryBytes_);
        if (!buf)
            return buf.error();
        if (old.rows) { // the rows held so far move into the larger range
            ZBDDC_TRY(d_.copy(buf->ptr() + (old.first - rows.first) * entryBytes_, at_[t],
                              old.rows * entryBytes_, entry_));
            ZBDDC_TRY(d_.synchronize(entry_));
        }
        at_[t] = buf->ptr();
        owned_[t] = std::move(*buf);
        held_[t] = rows;
        return Ok{};
    }
    Status release(uint32_t t) override {
        owned_[t] = DeviceBuffer{}; // back to the pool
        at_[t] = 0;
        held_[t] = {};
        return Ok{};
    }
    // Enqueued from pinned staging (converted to floats there where the tables are floats).
    Status upload(uint32_t t, uint64_t first, std::span<const double> v) override {
        auto staged = stage(v.size() * entryBytes_);
        if (!staged)
            return staged.error();
        writeTableImage(v, options_.kernels.float32, *staged);
        return d_.upload(address(t, first), *staged, v.size() * entryBytes_, entry_);
    }
    Status download(uint32_t t, uint64_t first, std::span<double> v) override {
        ZBDDC_TRY(d_.synchronize(entry_));
        if (!options_.kernels.float32)
            return d_.download(v.data(), address(t, first), v.size() * sizeof(double));
        std::vector<float> narrow(v.size());
        ZBDDC_TRY(d_.download(narrow.data(), address(t, first), narrow.size() * sizeof(float)));
        std::copy(narrow.begin(), narrow.end(), v.begin());
        return Ok{};
    }
    // The small inputs' ranges in one block filled by one copy (packed_inputs.h), each other
    // range a block of its own.
    Status holdAll(std::span<const TableReserve> ranges,
                   std::span<const std::vector<double>> inputs) override {
        std::vector<uint64_t> bytes;
        for (const TableReserve &r : ranges)
            bytes.push_back(r.rows.rows * entryBytes_);
        const PackedInputs packed =
            packSmallInputs(bytes, [&](size_t i) { return !inputs[ranges[i].table].empty(); });
        if (packed.bytes) { // enqueued before any other staging, which may reuse the buffer
            auto block = d_.allocate(packed.bytes);
            if (!block)
                return block.error();
            packed_ = std::move(*block);
            auto image = stage(packed.bytes);
            if (!image)
                return image.error();
            for (size_t i = 0; i < ranges.size(); ++i)
                if (const TableReserve &r = ranges[i]; packed.at[i] != kUnpacked) {
                    at_[r.table] = packed_.ptr() + packed.at[i];
                    held_[r.table] = r.rows;
                    writeTableImage(std::span(inputs[r.table]).subspan(r.rows.first, r.rows.rows),
                                    options_.kernels.float32, *image + packed.at[i]);
                }
            ZBDDC_TRY(d_.upload(packed_.ptr(), *image, packed.bytes, entry_));
        }
        for (size_t i = 0; i < ranges.size(); ++i)
            if (const TableReserve &r = ranges[i]; packed.at[i] == kUnpacked) {
                ZBDDC_TRY(reserve(r.table, r.rows));
                if (!inputs[r.table].empty())
                    ZBDDC_TRY(
                        upload(r.table, r.rows.first,
                               std::span(inputs[r.table]).subspan(r.rows.first, r.rows.rows)));
            }
        return Ok{};
    }
    // Every level's input lists in one array, and each level's whole ops of one generic kernel as
    // one fused launch (fused_launch.h; where the modules have fused entry points), uploaded once.
    Status prepareLevels(std::span<const std::vector<DeviceTask>> levels) override {
        levelOf_.assign(p_.ops.size(), UINT32_MAX);
        listAt_.assign(p_.ops.size(), 0);
        std::vector<DevicePtr> bases;
        std::vector<std::vector<uint32_t>> whole(levels.size()); // by level: ops run whole here
        for (size_t l = 0; l < levels.size(); ++l)
            for (const DeviceTask &task : levels[l]) {
                levelOf_[task.op] = static_cast<uint32_t>(l);
                listAt_[task.op] = bases.size() * sizeof(DevicePtr);
                appendInputList(task.op, bases);
                if (computesWhole(task))
                    whole[l].push_back(task.op);
            }
        auto lists = uploadArray(d_, bases);
        if (!lists)
            return lists.error();
        lists_ = std::move(*lists);
        auto fused = FusedLaunches::upload(
            d_, p_, modules_, launchUnits(p_, modules_, whole),
            [&](uint32_t op) { return lists_.ptr() + listAt_[op]; },
            [&](uint32_t op) { return address(p_.ops[op].output, 0); });
        if (!fused)
            return fused.error();
        fused_ = std::move(*fused);
        return Ok{};
    }
    // A prepared level (prepareLevels): its fused and single whole ops, then its shares. Else the
    // tasks' input lists in one array, uploaded on the entry stream before the level forks from
    // it, kept until wait().
    Status launch(std::span<const DeviceTask> tasks) override {
        if (fused_ && levelOf_[tasks[0].op] != UINT32_MAX)
            return launchPrepared(levelOf_[tasks[0].op], tasks);
        std::vector<DevicePtr> bases;
        std::vector<size_t> listAt;
        for (const DeviceTask &task : tasks) {
            listAt.push_back(bases.size() * sizeof(DevicePtr));
            appendInputList(task.op, bases);
        }
        const size_t listBytes = std::max<size_t>(bases.size(), 1) * sizeof(DevicePtr);
        auto lists = d_.allocate(listBytes);
        if (!lists)
            return lists.error();
        const DevicePtr listsPtr = lists->ptr();
        listsInFlight_.push_back(std::move(*lists));
        auto staged = stage(listBytes);
        if (!staged)
            return staged.error();
        std::copy(bases.begin(), bases.end(), reinterpret_cast<DevicePtr *>(*staged));
        ZBDDC_TRY(d_.upload(listsPtr, *staged, listBytes, entry_));
        std::vector<uint32_t> units(tasks.size());
        std::iota(units.begin(), units.end(), 0u);
        ZBDDC_TRY(kept_.launcher->enqueueLevel(units, [&](uint32_t i, StreamHandle stream) {
            return launchTask(tasks[i], listsPtr + listAt[i], stream);
        }));
        return d_.record(kept_.ready, entry_);
    }
    Status wait() override {
        ZBDDC_TRY(d_.synchronize(entry_)); // every level joined into it
        listsInFlight_.clear();
        staged_ = 0;
        return Ok{};
    }

    DevicePtr address(uint32_t t, uint64_t row) const {
        return at_[t] + (row - held_[t].first) * entryBytes_;
    }
    uint64_t entryBytes() const { return entryBytes_; }
    Device &device() const { return d_; }
    StreamHandle copyStream() const { return entry_; }
    EventHandle ready() const { return kept_.ready; } // after its latest level

  private:
    uint64_t outputRows(uint32_t op) const { return p_.tables[p_.ops[op].output].entries(); }
    bool computesWhole(const DeviceTask &task) const {
        return task.out.first == 0 && task.out.rows == outputRows(task.op);
    }
    // Op `op`'s inputs at their whole-table offsets: each held range's row 0.
    void appendInputList(uint32_t op, std::vector<DevicePtr> &bases) const {
        for (uint32_t in : p_.ops[op].inputs)
            bases.push_back(at_[in] - held_[in].first * entryBytes_);
    }
    Status launchTask(const DeviceTask &task, DevicePtr list, StreamHandle stream) {
        return launchOpRows(d_, modules_, p_, task.op, options_.kernels, options_.chunkRows, list,
                            address(p_.ops[task.op].output, task.out.first), task.out.first,
                            task.out.rows, stream);
    }
    // Level l's units of whole ops (fused_) and its shares, forked from the entry stream.
    Status launchPrepared(uint32_t l, std::span<const DeviceTask> tasks) {
        const std::vector<uint32_t> &units = fused_->units().levels[l];
        std::vector<const DeviceTask *> shares;
        for (const DeviceTask &task : tasks)
            if (!computesWhole(task))
                shares.push_back(&task);
        std::vector<uint32_t> items(units.size() + shares.size()); // units, then shares
        std::iota(items.begin(), items.end(), 0u);
        const EnqueueOp whole = [&](uint32_t op, StreamHandle stream) {
            return launchTask({op, 0, {0, outputRows(op)}}, lists_.ptr() + listAt_[op], stream);
        };
        ZBDDC_TRY(kept_.launcher->enqueueLevel(items, [&](uint32_t i, StreamHandle stream) {
            if (i < units.size())
                return fused_->enqueue(d_, p_, modules_, options_.kernels, units[i], whole, stream);
            const DeviceTask &share = *shares[i - units.size()];
            return launchTask(share, lists_.ptr() + listAt_[share.op], stream);
        }));
        return d_.record(kept_.ready, entry_);
    }
    // `bytes` of pinned staging for an async upload, valid until the entry stream is waited for.
    // Where the buffer is full it is waited for and grown, so the next run fits without a wait.
    Result<unsigned char *> stage(size_t bytes) {
        if (staged_ + bytes > staging().bytes()) {
            ZBDDC_TRY(d_.synchronize(entry_)); // nothing staged is in flight: it may go
            auto grown = d_.allocatePinned(2 * (staged_ + bytes) + (size_t{1} << 20));
            if (!grown)
                return grown.error();
            staging() = std::move(*grown);
            staged_ = 0;
        }
        unsigned char *at = staging().data() + staged_;
        staged_ += (bytes + 15) / 16 * 16;
        return at;
    }
    PinnedBuffer &staging() { return kept_.staging; }

    Device &d_;
    const TensorProgram &p_;
    GpuExecOptions options_;
    TensorModules modules_;
    std::vector<DevicePtr> at_;               // by table: the address of its held range's first row
    std::vector<DeviceBuffer> owned_;         // by table: its block, unless it lies in packed_
    std::vector<RowSpan> held_;               // by table
    DeviceBuffer packed_;                     // holdAll's small inputs
    std::vector<DeviceBuffer> listsInFlight_; // the input lists of the levels not waited for
    // prepareLevels': by op, its level (UINT32_MAX: not prepared) and its input list's offset in
    // lists_; the levels' launch units.
    std::vector<uint32_t> levelOf_;
    std::vector<uint64_t> listAt_;
    DeviceBuffer lists_;
    std::optional<FusedLaunches> fused_;
    uint64_t entryBytes_;
    SliceResources kept_;
    StreamHandle entry_ = nullptr; // kept_.launcher's
    size_t staged_ = 0;            // bytes of staging in use since the last wait
};

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
                ZBDDC_TRY(to.device().waitEvent(to.copyStream(), from.ready()));
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
    if (Status s = program.verify(); !s)
        return s.error();
    // Slices by output variables would cut a message's normalisation group.
    if (Status s = refuseMessageOps(program, "the multi-GPU executor"); !s)
        return s.error();
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
            st.nccl = true;
            st.transport = "NCCL " + ncclVersion() + " between GPUs";
        }
    }

    st.planMs = msSince(planned0);
    // Each GPU's modules loaded at once; its logical devices share them. An ordered run fuses a
    // level's small whole ops as one GPU does (GpuTensorDevice::prepareLevels).
    options.kernels.fusedEntries = run->ordered;
    const auto t0 = std::chrono::steady_clock::now();
    auto modules = TensorModules::compile(gpus, ran, options.kernels);
    if (!modules)
        return modules.error();
    for (int o : ordinals) {
        const size_t g = static_cast<size_t>(rankOf.at(o));
        run->devices.push_back(std::make_unique<GpuTensorDevice>(*gpus[g], ran, options));
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
                ZBDDC_TRY(home.waitEvent(first.copyStream(), d->ready()));
        }
        std::vector<TableSegment> segments;
        for (const TableHolding &h : decodeHoldings(ran, run.plan))
            segments.push_back({h.table, h.rows.first, h.rows.rows,
                                run.devices[h.device]->address(h.table, h.rows.first)});
        auto decoded = decodeOnDevice(home, ran, std::move(segments), assignment, st.float32,
                                      first.copyStream(), &st.valueMs);
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
