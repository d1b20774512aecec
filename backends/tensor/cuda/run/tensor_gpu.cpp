#include "backends/tensor/cuda/run/tensor_gpu.h"

#include "backends/cuda/driver.h"
#include "backends/tensor/cuda/device/op_launch.h"
#include "backends/tensor/cuda/device/op_profile.h"
#include "backends/tensor/cuda/plan/chunk_layout.h"
#include "backends/tensor/cuda/plan/narrow_costs.h"
#include "backends/tensor/cuda/run/multi_device_run.h"
#include "backends/tensor/cpu/tensor_cpu.h"
#include "backends/tensor/cuda/device/staged_copies.h"
#include "backends/tensor/cuda/run/chunk_steps.h"
#include "backends/tensor/cuda/run/value_phase_gpu.h"
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

// What every run starts with: the program checked, the device, the plan (in core, or out of core
// over a program perhaps re-laid out), and the kernels compiled for the program that runs.
struct Prepared {
    Device *device = nullptr;
    ChunkPlan plan;
    std::optional<TensorProgram> relaid;
    TensorKernelOptions kernels;
    TensorModules modules;
};

Result<Prepared> prepare(const TensorProgram &program, const GpuExecOptions &options,
                         GpuExecStats &st) {
    ZBDDC_TRY(program.verify());
    auto device = openDevice(options.device);
    if (!device)
        return device.error();
    Prepared p;
    p.device = *device;
    Device &d = **device;
    st.device = d.info().label();

    auto memory = d.memoryInfo();
    if (!memory)
        return memory.error();
    // The chunks out of core follow from this budget (chunk_plan.h); idle pool blocks
    // count as free, the pool hands them out first.
    const uint64_t budget =
        options.memoryBudgetBytes
            ? options.memoryBudgetBytes
            : static_cast<uint64_t>(options.memoryFraction *
                                    static_cast<double>(memory->freeBytes + memory->pooledBytes));
    st.budgetBytes = budget;
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
    p.plan = std::move(*plan);
    st.outOfCore = p.plan.outOfCore;
    // The chunked path splits reductions into ⊕-combined partial results, which a reciprocal
    // does not survive; batched junction trees size their batches to fit instead.
    if (p.plan.outOfCore)
        for (const TensorOp &op : program.ops)
            if (op.kind == TensorOpKind::InverseMax || isMessageOp(op.kind))
                return error("this program's tables exceed the device memory budget (" +
                             std::to_string(budget >> 20) +
                             " MiB) and its rescaling ops do not run out of core");
    p.kernels = options.kernels;
    for (const OpChunkPlan &op : p.plan.ops)
        p.kernels.eliminationRange |= op.elimSlices > 1;
    // Out of core a step uploads only the input rows its chunk of output rows reads; a row group
    // reaches past the chunk.
    p.kernels.rowGroups &= !p.plan.outOfCore;
    // Out of core every op keeps its specialised kernel: the chunked launcher passes elimination
    // ranges, not generic kernels' shapes (generic_tensor_kernels.h), and its ops are large.
    if (p.plan.outOfCore)
        p.kernels.genericMaxWork = 0;
    // In core, 32-bit tables where every value provably stays exact (narrow_costs.h); the
    // out-of-core path keeps doubles (its host tables are the caller's).
    p.kernels.float32 = !p.plan.outOfCore && useFloatTables(program, options.switches.narrowCosts);
    st.float32 = p.kernels.float32;
    if (!p.kernels.streamingStoreMinBytes)
        p.kernels.streamingStoreMinBytes = streamingStoreMinBytes(d.info());
    p.kernels.fusedEntries = !p.plan.outOfCore; // runInCore fuses a level's small ops

    const auto t0 = std::chrono::steady_clock::now();
    auto compiled = TensorModules::compile(d, p.relaid ? *p.relaid : program, p.kernels);
    if (!compiled)
        return compiled.error();
    st.compiledFromCache = compiled->fromCache();
    st.modulesReused = compiled->loadedBefore();
    p.modules = std::move(*compiled);
    st.compileMs = msSince(t0);
    return p;
}

// Out of core: chunkSteps (chunk_steps.h) on the GPU's TensorDevice; every computed table comes
// back to the host, in the layout of the program that ran (p.relaid where there is one).
Result<std::vector<std::vector<double>>> runOutOfCore(const TensorProgram &program, Prepared &p,
                                                      const GpuExecOptions &options,
                                                      GpuExecStats &st) {
    const auto t0 = std::chrono::steady_clock::now();
    const TensorProgram &ran = p.relaid ? *p.relaid : program;
    GpuDeviceOptions o{p.kernels, options.chunkRows, 1, false};
    o.stagedUploads = true;
    auto staging = StagedCopies::of(*p.device); // on a GPU's first out-of-core run: allocated
    if (!staging)
        return staging.error();
    st.pinnedBytes = (*staging)->pinnedBytes();
    auto device = GpuTensorDevice::open(*p.device, ran, o, std::move(p.modules));
    if (!device)
        return device.error();
    st.hostPrepMs = msSince(t0);
    const std::vector<DeviceStep> steps = chunkSteps(ran, p.plan);
    for (const DeviceStep &s : steps) {
        const uint64_t bytes = s.rows.rows * sizeof(double);
        st.uploadBytes += s.kind == StepKind::Upload ? bytes : 0;
        st.downloadBytes += s.kind == StepKind::Download ? bytes : 0;
        st.chunks += s.kind == StepKind::Launch;
    }
    TensorDevice *const devices[] = {device->get()};
    StepTargets targets;
    targets.devices = devices;
    StepTimes times{};
    auto computed = runDeviceSteps(ran, steps, targets, times);
    st.uploadMs = times[static_cast<size_t>(StepClock::Upload)];
    st.downloadMs = times[static_cast<size_t>(StepClock::Download)];
    st.kernelMs = msSince(t0); // uploads, kernels and downloads: one figure
    return computed;
}

// In core: inCoreSteps (multi_device_run.h) on the GPU's TensorDevice, or with a profile each op
// alone (op_profile.h). `decode` (a solve's VALUE phase) is their Call step, enqueued behind the
// levels: it reads the tables where they are, and none is downloaded.
Result<std::vector<std::vector<double>>>
runInCore(const TensorProgram &program, Prepared &p, const GpuExecOptions &options,
          GpuExecStats &st, const std::function<Status(GpuTensorDevice &)> &decode = {}) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<DeviceStep> steps = inCoreSteps(program, static_cast<bool>(decode));
    const GpuDeviceOptions o{p.kernels, options.chunkRows, 8,
                             options.switches.graphs.value_or(false)};
    auto device = GpuTensorDevice::open(*p.device, program, o, std::move(p.modules));
    if (!device)
        return device.error();
    GpuTensorDevice &gpu = **device;
    const uint64_t valueBytes = p.kernels.float32 ? sizeof(float) : sizeof(double);
    for (uint32_t op = 0; op < program.ops.size(); ++op)
        st.tableBytes += opTableBytes(program, op, valueBytes);
    TensorDevice *const devices[] = {&gpu};
    StepTargets targets;
    targets.devices = devices;
    if (decode)
        targets.call = [&] { return decode(gpu); };
    std::unique_ptr<std::FILE, int (*)(std::FILE *)> profile(nullptr, std::fclose);
    if (const std::string &path = options.switches.profilePath; !path.empty()) {
        profile.reset(std::fopen(path.c_str(), "a"));
        if (!profile)
            return error(path + ": cannot open the GPU profile for appending");
        std::erase_if(steps, [](const DeviceStep &s) {
            return s.kind == StepKind::Prepare || s.kind == StepKind::Launch;
        });
        const std::vector<DeviceStep> each = profileSteps(program);
        steps.insert(steps.begin() + 1, each.begin(), each.end()); // after the HoldAll
        targets.timed = profileLines(profile.get(), program, valueBytes);
    }
    StepTimes times{};
    st.steps = steps.size();
    st.openMs = msSince(t0);
    const auto t1 = std::chrono::steady_clock::now();
    auto computed = runDeviceSteps(program, steps, targets, times);
    st.stepsMs = msSince(t1);
    st.uploadMs = times[static_cast<size_t>(StepClock::Upload)];
    st.kernelMs = times[static_cast<size_t>(StepClock::Compute)]; // the caller takes decode's out
    st.downloadMs = times[static_cast<size_t>(StepClock::Download)];
    st.launches = gpu.stats().launches;
    st.graph = gpu.stats().graph;
    const auto t2 = std::chrono::steady_clock::now();
    device->reset();
    st.closeMs = msSince(t2);
    return computed;
}

} // namespace

Result<std::vector<std::vector<double>>> runTensorProgramCuda(const TensorProgram &program,
                                                              const GpuExecOptions &options,
                                                              GpuExecStats *stats) {
    GpuExecStats local;
    GpuExecStats &st = stats ? *stats : local;
    const auto began = std::chrono::steady_clock::now();
    auto p = prepare(program, options, st);
    st.prepareMs = msSince(began);
    if (!p)
        return p.error();
    if (p->plan.outOfCore) {
        auto computed = runOutOfCore(program, *p, options, st);
        if (computed && p->relaid)
            restoreLayouts(program, *p->relaid, *computed);
        return computed;
    }
    return runInCore(program, *p, options, st);
}

Result<double> solveTensorProgramCuda(const TensorProgram &program,
                                      std::vector<uint32_t> &assignment,
                                      const GpuExecOptions &options, GpuExecStats *stats,
                                      bool *tied) {
    GpuExecStats local;
    GpuExecStats &st = stats ? *stats : local;
    const auto began = std::chrono::steady_clock::now();
    auto p = prepare(program, options, st);
    st.prepareMs = msSince(began);
    if (!p)
        return p.error();
    if (tied)
        *tied = false; // each walk below only ever sets it
    if (p->plan.outOfCore) { // the tables are on the host already: decode there
        auto tables = runOutOfCore(program, *p, options, st);
        if (!tables)
            return tables.error();
        const auto t0 = std::chrono::steady_clock::now();
        // The program that ran: a relaid one differs only in its tables' layouts, which the walk
        // reads through their scopes, so it picks the same values.
        const TensorProgram &ran = p->relaid ? *p->relaid : program;
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
    // The VALUE phase enqueued behind the ops: its plan is built while they run, and valueMs is
    // the device's time from their end to its kernel's end (the assignment's few bytes come back
    // before the run's one wait, counted with the kernels).
    double optimum = 0;
    const auto decode = [&](GpuTensorDevice &gpu) -> Status {
        std::vector<TableSegment> tables; // each whole, where the device holds it
        for (uint32_t t = 0; t < program.tables.size(); ++t)
            if (const DevicePtr at = gpu.address(t, 0))
                tables.push_back({t, 0, program.tables[t].entries(), at});
        // Its arrays from the device's pinned staging: their copy need not wait for the ops.
        const PinnedStaging pinned = [&](size_t bytes) { return gpu.pinnedStaging(bytes); };
        auto decoded = decodeOnDevice(gpu.device(), program, std::move(tables), assignment,
                                      p->kernels.float32, gpu.copyStream(), &st.valueMs, tied,
                                      pinned);
        if (!decoded)
            return decoded.error();
        optimum = *decoded;
        return Ok{};
    };
    if (auto ran = runInCore(program, *p, options, st, decode); !ran)
        return ran.error();
    st.kernelMs -= st.valueMs;
    st.valueOnDevice = true;
    return optimum;
}

Result<std::unique_ptr<GpuTensorDevice>> openGpuTensorDevice(const TensorProgram &program,
                                                             const GpuExecOptions &options) {
    ZBDDC_TRY(program.verify());
    auto device = openDevice(options.device);
    if (!device)
        return device.error();
    auto modules = TensorModules::compile(**device, program, options.kernels);
    if (!modules)
        return modules.error();
    GpuDeviceOptions o{options.kernels, options.chunkRows, 8,
                       options.switches.graphs.value_or(true)};
    o.stagedDownloads = false; // a prepared program's tables (gpu_tensor_device.h)
    return GpuTensorDevice::open(**device, program, o, std::move(*modules));
}

} // namespace zbddc::cuda
