#include "backends/tensor/cuda/run/tensor_gpu.h"

#include "backends/cuda/driver.h"
#include "backends/tensor/cpu/tensor_cpu.h"
#include "backends/tensor/cuda/device/gpu_fabric.h"
#include "backends/tensor/cuda/device/op_launch.h"
#include "backends/tensor/cuda/device/op_profile.h"
#include "backends/tensor/cuda/device/staged_copies.h"
#include "backends/tensor/cuda/plan/narrow_costs.h"
#include "backends/tensor/cuda/run/value_phase_gpu.h"
#include "backends/tensor/devices/chunk_layout.h"
#include "backends/tensor/devices/chunk_steps.h"
#include "backends/tensor/devices/multi_device_run.h"
#include "backends/tensor/devices/slice_layout.h"
#include "ir/tensor_interpret.h"
#include "ir/try.h"
#include "support/timer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>

namespace zbddc::cuda {

namespace {

// What every run starts with: the GPUs, the plan over the program that runs (perhaps re-laid
// out), and its kernels on each GPU.
struct Prepared {
    std::vector<Device *> gpus;          // each distinct GPU once
    std::vector<uint32_t> gpuOf;         // by logical device: its GPU in `gpus`
    std::optional<TensorProgram> relaid; // chunk_layout.h's or slice_layout.h's layouts, if any
    const TensorProgram *caller = nullptr;
    // The program that runs: relaid, else the caller's (a function: a Prepared moves, and a
    // pointer into its own `relaid` would not move with it).
    const TensorProgram &ran() const { return relaid ? *relaid : *caller; }
    ChunkPlan chunks;                    // whether (and how) one device runs out of core
    MultiDevicePlan plan;                // in core
    bool ordered = false; // in core: every widest range held to the end (multi_device_run.h)
    TensorKernelOptions kernels;
    std::vector<TensorModules> modules; // by GPU
};

// Bytes of tables one logical device may hold: 80% of its GPU's free memory (the pool's idle
// blocks counted), shared by the logical devices on it; the least over the GPUs.
Result<uint64_t> deviceBudget(const Prepared &p) {
    uint64_t least = UINT64_MAX;
    for (uint32_t g = 0; g < p.gpus.size(); ++g) {
        auto memory = p.gpus[g]->memoryInfo();
        if (!memory)
            return memory.error();
        const auto shares = static_cast<double>(std::count(p.gpuOf.begin(), p.gpuOf.end(), g));
        const auto free = static_cast<double>(memory->freeBytes + memory->pooledBytes);
        least = std::min(least, static_cast<uint64_t>(0.8 * free / shares));
    }
    return least;
}

// One device: in core where every table fits at once (oneDevicePlan), else out of core.
Status planOneDevice(const TensorProgram &program, const GpuExecOptions &options, bool decode,
                     uint64_t budget, Prepared &p, GpuExecStats &st) {
    ChunkPlanOptions po;
    po.budgetBytes = budget;
    po.wholeInputMaxEntries = options.kernels.sharedInputMaxEntries;
    auto plan = planChunks(program, po);
    // Out of core, slices should be exactly the rows a step reads: re-lay the program out where
    // its layout makes them wider (chunk_layout.h), also when that is what lets it fit.
    if ((!plan || plan->outOfCore) && needsRelayout(program)) {
        p.relaid = relayoutForChunks(program);
        plan = planChunks(*p.relaid, po);
        st.relaid = true;
    }
    if (!plan)
        return plan.error();
    p.chunks = std::move(*plan);
    st.outOfCore = p.chunks.outOfCore;
    if (!p.chunks.outOfCore) { // 32-bit tables where every value provably stays exact
        p.kernels.float32 = options.switches.narrowCosts && fitsFloat32(program);
        MultiDeviceOptions o;
        o.keepForDecode = decode;
        o.entryBytes = p.kernels.float32 ? sizeof(float) : sizeof(double);
        p.plan = oneDevicePlan(program, o);
        p.ordered = !options.multiDevice.levelByLevel;
        return Ok{};
    }
    // The chunked path splits reductions into ⊕-combined partial results, which a reciprocal
    // does not survive; batched junction trees size their batches to fit instead.
    for (const TensorOp &op : program.ops)
        if (op.kind == TensorOpKind::InverseMax)
            return error("this program's tables exceed the device memory budget (" +
                         std::to_string(budget >> 20) +
                         " MiB) and its rescaling ops do not run out of core");
    for (const OpChunkPlan &op : p.chunks.ops)
        p.kernels.eliminationRange |= op.elimSlices > 1;
    // A step uploads only the input rows its chunk of output rows reads; a row group reaches past
    // the chunk. Every op keeps its specialised kernel: the chunked launcher passes elimination
    // ranges, not generic kernels' shapes (generic_tensor_kernels.h), and its ops are large. The
    // host tables are the caller's doubles.
    p.kernels.rowGroups = false;
    p.kernels.genericMaxWork = 0;
    p.kernels.float32 = false;
    return Ok{};
}

// Several devices: the multi-device plan, with outputs laid out for slicing where that moves
// fewer rows (slice_layout.h); ordered where every device holds its widest ranges to the end.
Status planDevices(const TensorProgram &program, const GpuExecOptions &options, bool decode,
                   uint64_t budget, Prepared &p, GpuExecStats &st) {
    p.kernels.float32 = options.switches.narrowCosts && fitsFloat32(program);
    MultiDeviceOptions planned = options.multiDevice;
    // Inputs the kernels stage whole in shared memory must be whole on every device.
    planned.wholeInputMaxEntries =
        std::max<uint64_t>(planned.wholeInputMaxEntries, p.kernels.sharedInputMaxEntries);
    planned.entryBytes = p.kernels.float32 ? sizeof(float) : sizeof(double);
    planned.keepForDecode = decode;
    if (!planned.deviceBudgetBytes)
        planned.deviceBudgetBytes = budget;
    st.budgetBytes = planned.deviceBudgetBytes;
    const auto devices = static_cast<uint32_t>(options.devices.size());
    const PlanFor planFor = [&](const TensorProgram &q) {
        MultiDeviceOptions o = planned;
        for (uint32_t op = 0; op < q.ops.size(); ++op) // a share reads its row groups whole
            o.rowGroupSpan.push_back(rowGroupOf(q, op, p.kernels).span());
        return planMultiDevice(q, devices, o);
    };
    auto plan = planned.keepLayouts
                    ? planFor(program)
                    : planWithSliceLayouts(program, devices, planned, planFor, p.relaid);
    if (!plan)
        return plan.error();
    p.plan = std::move(*plan);
    p.ordered = !planned.levelByLevel &&
                std::all_of(p.plan.heldToEndBytes.begin(), p.plan.heldToEndBytes.end(),
                            [&](uint64_t b) { return b <= planned.deviceBudgetBytes; });
    for (size_t t = 0; p.relaid && t < program.tables.size(); ++t)
        st.relaidOutputs += p.relaid->tables[t].scope != program.tables[t].scope;
    return Ok{};
}

// `decode`: the plan keeps every table on the devices for the VALUE phase.
Result<Prepared> prepare(const TensorProgram &program, const GpuExecOptions &options, bool decode,
                         GpuExecStats &st) {
    const auto began = std::chrono::steady_clock::now();
    ZBDDC_TRY(program.verify());
    ZBDDC_TRY(refuseMessageOps(program, "the GPU executor"));
    if (options.devices.empty())
        return error("internal error: a GPU run with no device");
    Prepared p;
    p.caller = &program;
    for (int ordinal : options.devices) {
        auto d = openDevice(ordinal);
        if (!d)
            return d.error();
        const auto known = std::find(p.gpus.begin(), p.gpus.end(), *d);
        p.gpuOf.push_back(static_cast<uint32_t>(known - p.gpus.begin()));
        if (known == p.gpus.end()) {
            p.gpus.push_back(*d);
            st.device += (st.device.empty() ? "" : ", ") + (*d)->info().label();
        }
    }
    uint64_t budget = options.memoryBudgetBytes;
    if (!budget) {
        auto free = deviceBudget(p);
        if (!free)
            return free.error();
        budget = *free;
    }
    st.budgetBytes = budget;
    p.kernels = options.kernels;
    if (!p.kernels.streamingStoreMinBytes) // the hosts' GPUs are taken to be alike
        p.kernels.streamingStoreMinBytes = streamingStoreMinBytes(p.gpus[0]->info());
    ZBDDC_TRY(options.devices.size() == 1 ? planOneDevice(program, options, decode, budget, p, st)
                                          : planDevices(program, options, decode, budget, p, st));
    p.kernels.fusedEntries = !p.chunks.outOfCore && p.ordered; // prepareLevels fuses small ops
    st.float32 = p.kernels.float32;
    if (!p.chunks.outOfCore) {
        st.slicedOps = p.plan.slicedOps;
        st.uploadBytes = p.plan.uploadBytes;
        st.peerBytes = p.plan.peerBytes;
        st.downloadBytes = p.plan.downloadBytes;
        st.work = p.plan.work;
        for (uint32_t o = 0; o < p.ran().ops.size(); ++o)
            st.tableBytes += opTableBytes(p.ran(), o, p.kernels.float32 ? 4 : 8);
    }
    st.planMs = msSince(began);

    const auto t0 = std::chrono::steady_clock::now();
    auto modules = TensorModules::compile(p.gpus, p.ran(), p.kernels);
    if (!modules)
        return modules.error();
    st.modulesReused = true;
    for (const TensorModules &m : *modules)
        st.modulesReused = st.modulesReused && m.loadedBefore();
    p.modules = std::move(*modules);
    st.compileMs = msSince(t0);
    st.prepareMs = msSince(began);
    return p;
}

// Each logical device over its GPU's modules (the last one on a GPU takes them).
Result<std::vector<std::unique_ptr<GpuTensorDevice>>> openDevices(Prepared &p,
                                                                  const GpuDeviceOptions &o) {
    std::vector<std::unique_ptr<GpuTensorDevice>> devices;
    for (size_t i = 0; i < p.gpuOf.size(); ++i) {
        const uint32_t g = p.gpuOf[i];
        const bool last = std::find(p.gpuOf.begin() + i + 1, p.gpuOf.end(), g) == p.gpuOf.end();
        auto device = GpuTensorDevice::open(*p.gpus[g], p.ran(), o,
                                            last ? std::move(p.modules[g]) : p.modules[g]);
        if (!device)
            return device.error();
        devices.push_back(std::move(*device));
    }
    return devices;
}

// Out of core: chunkSteps (chunk_steps.h) on the GPU's TensorDevice; every computed table comes
// back to the host, in the layout of the program that ran.
Result<std::vector<std::vector<double>>> runOutOfCore(Prepared &p, const GpuExecOptions &options,
                                                      GpuExecStats &st) {
    const auto t0 = std::chrono::steady_clock::now();
    GpuDeviceOptions o{p.kernels, options.chunkRows, 1, false};
    o.stagedUploads = true;
    auto staging = StagedCopies::of(*p.gpus[0]); // on a GPU's first out-of-core run: allocated
    if (!staging)
        return staging.error();
    st.pinnedBytes = (*staging)->pinnedBytes();
    auto devices = openDevices(p, o);
    if (!devices)
        return devices.error();
    st.hostPrepMs = msSince(t0);
    const std::vector<DeviceStep> steps = chunkSteps(p.ran(), p.chunks);
    for (const DeviceStep &s : steps) {
        const uint64_t bytes = s.rows.rows * sizeof(double);
        st.uploadBytes += s.kind == StepKind::Upload ? bytes : 0;
        st.downloadBytes += s.kind == StepKind::Download ? bytes : 0;
        st.chunks += s.kind == StepKind::Launch;
    }
    TensorDevice *const view[] = {devices->front().get()};
    StepTargets targets;
    targets.devices = view;
    StepTimes times{};
    auto computed = runDeviceSteps(p.ran(), steps, targets, times);
    st.uploadMs = times[static_cast<size_t>(StepClock::Upload)];
    st.downloadMs = times[static_cast<size_t>(StepClock::Download)];
    st.kernelMs = msSince(t0); // uploads, kernels and downloads: one figure
    return computed;
}

using Decode = std::function<Status(std::span<const std::unique_ptr<GpuTensorDevice>>)>;

// In core: the plan's steps on the devices, or with a profile each op alone (op_profile.h).
// `decode` (a solve's VALUE phase) is their Call step, reading the tables where they are.
Result<std::vector<std::vector<double>>> runInCore(Prepared &p, const GpuExecOptions &options,
                                                   GpuExecStats &st, const Decode &decode = {}) {
    const auto t0 = std::chrono::steady_clock::now();
    const TensorProgram &ran = p.ran();
    std::vector<DeviceStep> steps = multiDeviceSteps(p.plan, p.ordered, ran.fetch);
    const bool one = options.devices.size() == 1;
    const GpuDeviceOptions o{p.kernels, options.chunkRows, one ? size_t{8} : size_t{4},
                             one && options.switches.graphs.value_or(false)};
    auto opened = openDevices(p, o);
    if (!opened)
        return opened.error();
    std::vector<std::unique_ptr<GpuTensorDevice>> &devices = *opened;
    std::vector<TensorDevice *> view;
    for (const auto &d : devices)
        view.push_back(d.get());
    std::unique_ptr<GpuFabric> fabric; // destroyed before the devices it moves rows between
    if (!one)
        fabric = GpuFabric::open(devices, options.devices, st.transport);
    StepTargets targets;
    targets.devices = view;
    targets.fabric = fabric.get();
    if (decode)
        targets.call = [&] { return decode(devices); };
    std::unique_ptr<std::FILE, int (*)(std::FILE *)> profile(nullptr, std::fclose);
    if (const std::string &path = options.switches.profilePath; !path.empty() && one && p.ordered) {
        profile.reset(std::fopen(path.c_str(), "a"));
        if (!profile)
            return error(path + ": cannot open the GPU profile for appending");
        std::erase_if(steps, [](const DeviceStep &s) {
            return s.kind == StepKind::Prepare || s.kind == StepKind::Launch;
        });
        const std::vector<DeviceStep> each = profileSteps(ran);
        steps.insert(steps.begin() + 1, each.begin(), each.end()); // after the HoldAll
        targets.timed = profileLines(profile.get(), ran, p.kernels.float32 ? 4 : 8);
    }
    StepTimes times{};
    st.steps = steps.size();
    st.ordered = p.ordered;
    st.openMs = msSince(t0);
    const auto t1 = std::chrono::steady_clock::now();
    auto computed = runDeviceSteps(ran, steps, targets, times);
    st.stepsMs = msSince(t1);
    st.uploadMs = times[static_cast<size_t>(StepClock::Upload)];
    st.peerMs = times[static_cast<size_t>(StepClock::Peer)];
    st.kernelMs = times[static_cast<size_t>(StepClock::Compute)]; // the caller takes decode's out
    st.downloadMs = times[static_cast<size_t>(StepClock::Download)];
    for (const auto &d : devices) {
        st.launches += d->stats().launches;
        st.graph = st.graph || d->stats().graph;
    }
    const auto t2 = std::chrono::steady_clock::now();
    fabric.reset();
    devices.clear();
    st.closeMs = msSince(t2);
    return computed;
}

} // namespace

Result<std::vector<std::vector<double>>> runTensorProgramCuda(const TensorProgram &program,
                                                              const GpuExecOptions &options,
                                                              GpuExecStats *stats) {
    GpuExecStats local;
    GpuExecStats &st = stats ? *stats : local;
    auto p = prepare(program, options, false, st);
    if (!p)
        return p.error();
    auto computed =
        p->chunks.outOfCore ? runOutOfCore(*p, options, st) : runInCore(*p, options, st);
    if (computed && p->relaid) // in the caller's layouts
        restoreLayouts(program, *p->relaid, *computed);
    return computed;
}

Result<double> solveTensorProgramCuda(const TensorProgram &program,
                                      std::vector<uint32_t> &assignment,
                                      const GpuExecOptions &options, GpuExecStats *stats,
                                      bool *tied) {
    if (tied)
        *tied = false; // each walk below only ever sets it
    GpuExecStats local;
    GpuExecStats &st = stats ? *stats : local;
    auto p = prepare(program, options, true, st);
    if (!p)
        return p.error();
    // The program that ran: a relaid one differs only in its tables' layouts, which the walk
    // reads through their scopes, so it picks the same values.
    const TensorProgram &ran = p->ran();
    if (p->chunks.outOfCore) { // the tables are on the host already: decode there
        auto tables = runOutOfCore(*p, options, st);
        if (!tables)
            return tables.error();
        const auto t0 = std::chrono::steady_clock::now();
        auto inputs = denseInputTables(ran);
        if (!inputs)
            return inputs.error();
        const RowValue value = [&](uint32_t id, uint64_t row) {
            return (ran.tables[id].input ? *inputs : *tables)[id][row];
        };
        const double optimum = programResult(ran, value);
        recoverAssignment(ran, value, assignment, tied);
        st.valueMs = msSince(t0);
        return optimum;
    }
    // The VALUE phase on the first device, enqueued behind every device's last level: its plan
    // is built while they run, and valueMs is the device's time from their end to its kernel's
    // end (the assignment's few bytes come back before the run's one wait, counted with the
    // kernels).
    double optimum = 0;
    const Decode decode = [&](std::span<const std::unique_ptr<GpuTensorDevice>> devices) -> Status {
        GpuTensorDevice &first = *devices[0];
        for (const auto &d : devices) {
            ZBDDC_TRY(first.device().enablePeerAccess(d->device()));
            if (d.get() != &first)
                ZBDDC_TRY(d->awaitedBy(first));
        }
        std::vector<TableSegment> segments;
        for (const TableHolding &h : decodeHoldings(ran, p->plan))
            segments.push_back({h.table, h.rows.first, h.rows.rows,
                                devices[h.device]->address(h.table, h.rows.first)});
        // Its arrays from the device's pinned staging: their copy need not wait for the ops.
        const PinnedStaging pinned = [&](size_t bytes) { return first.pinnedStaging(bytes); };
        auto decoded =
            decodeOnDevice(first.device(), ran, std::move(segments), assignment, p->kernels.float32,
                           first.copyStream(), &st.valueMs, tied, pinned);
        if (!decoded)
            return decoded.error();
        optimum = *decoded;
        return Ok{};
    };
    if (auto computed = runInCore(*p, options, st, decode); !computed)
        return computed.error();
    st.kernelMs -= st.valueMs;
    st.valueOnDevice = true;
    return optimum;
}

namespace {
// A graph saves each launch's enqueue, a few µs: under 2% of an op of 2^24 entries, and mildew's
// batched MAR ran slower with one (164 against 152 µs a case, H100, bench/results/NOTEBOOK.md).
// Programs of larger ops launch directly, the host waiting for each level (GpuDeviceOptions).
constexpr double kGraphMaxMeanOpEntries = double(1 << 24);
bool graphPays(const TensorProgram &program) {
    return tensorProgramWork(program) <
           kGraphMaxMeanOpEntries * static_cast<double>(std::max<size_t>(program.ops.size(), 1));
}
} // namespace

Result<std::unique_ptr<GpuTensorDevice>> openGpuTensorDevice(const TensorProgram &program,
                                                             const GpuExecOptions &options) {
    ZBDDC_TRY(program.verify());
    ZBDDC_TRY(refuseMessageOps(program, "the GPU executor"));
    auto device = openDevice(options.devices.empty() ? 0 : options.devices[0]);
    if (!device)
        return device.error();
    Device *const gpu[] = {*device};
    auto modules = TensorModules::compile(gpu, program, options.kernels);
    if (!modules)
        return modules.error();
    const bool smallOps = graphPays(program);
    GpuDeviceOptions o{options.kernels, options.chunkRows, 8,
                       options.switches.graphs.value_or(smallOps)};
    o.waitEachLevel = !smallOps; // gpu_tensor_device.h
    o.stagedDownloads = false; // a prepared program's tables (gpu_tensor_device.h)
    return GpuTensorDevice::open(**device, program, o, std::move(modules->front()));
}

} // namespace zbddc::cuda
