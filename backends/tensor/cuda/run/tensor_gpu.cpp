#include "backends/tensor/cuda/run/tensor_gpu.h"

#include "backends/cuda/driver.h"
#include "backends/tensor/cuda/plan/chunk_layout.h"
#include "backends/tensor/cuda/device/fused_launch.h"
#include "backends/tensor/cuda/device/level_launch.h"
#include "backends/tensor/cuda/plan/narrow_costs.h"
#include "backends/tensor/cuda/device/op_launch.h"
#include "backends/tensor/cuda/device/op_profile.h"
#include "backends/tensor/cuda/device/packed_inputs.h"
#include "backends/tensor/cuda/device/staged_copies.h"
#include "backends/tensor/cuda/run/tensor_gpu_chunked.h"
#include "backends/tensor/cuda/codegen/tensor_modules.h"
#include "backends/tensor/cuda/run/value_phase_gpu.h"
#include "ir/tensor_interpret.h"
#include "ir/try.h"
#include "support/memory.h"
#include "support/timer.h"

#include <algorithm>
#include <chrono>
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
    if (Status s = program.verify(); !s)
        return s.error();
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
    st.deviceFreeBytes = memory->freeBytes;
    st.deviceTotalBytes = memory->totalBytes;
    // The number of steps in flight follows from this budget (chunk_plan.h); idle pool blocks
    // count as free, the pool hands them out first.
    const uint64_t budget =
        options.memoryBudgetBytes
            ? options.memoryBudgetBytes
            : static_cast<uint64_t>(options.memoryFraction *
                                    static_cast<double>(memory->freeBytes + memory->pooledBytes));
    st.budgetBytes = budget;
    ChunkPlanOptions po;
    po.budgetBytes = budget;
    po.maxInFlight = options.maxInFlight;
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

// Out of core: the tables come back on the host, in the layout of the program that ran
// (p.relaid where there is one).
Result<HostTables> runOutOfCore(const TensorProgram &program, Prepared &p,
                                const GpuExecOptions &options, GpuExecStats &st) {
    GpuExecOptions chunked = options;
    chunked.kernels = p.kernels;
    return runChunkedOnDevice(*p.device, p.modules, p.relaid ? *p.relaid : program, p.plan,
                              chunked, st);
}

// The device's tables of an in-core run: `at[id]` is table id's address, in a block of `owned`.
struct DeviceTables {
    std::vector<DeviceBuffer> owned;
    std::vector<DevicePtr> at;
};

// Table `tab`'s complete values as the device holds them, at `dst` (packed_inputs.h).
void writeDeviceImage(const Table &tab, bool float32, unsigned char *dst) {
    const std::vector<double> dense = tab.sparse ? tab.denseValues() : std::vector<double>{};
    writeTableImage(tab.sparse ? dense : tab.values, float32, dst);
}

Status uploadInputs(Device &d, const TensorProgram &program, bool float32, DeviceTables &dt) {
    const uint64_t valueBytes = float32 ? sizeof(float) : sizeof(double);
    std::vector<uint64_t> tableBytes(program.tables.size());
    for (size_t t = 0; t < program.tables.size(); ++t)
        tableBytes[t] = program.tables[t].entries() * valueBytes;
    const PackedInputs packed =
        packSmallInputs(tableBytes, [&](size_t t) { return program.tables[t].input; });
    std::vector<unsigned char> staging(packed.bytes);
    auto block = d.allocate(std::max<uint64_t>(packed.bytes, 1));
    if (!block)
        return block.error();
    for (size_t t = 0; t < program.tables.size(); ++t) {
        const Table &tab = program.tables[t];
        if (packed.at[t] != kUnpacked) {
            dt.at[t] = block->ptr() + packed.at[t];
            writeDeviceImage(tab, float32, staging.data() + packed.at[t]);
            continue;
        }
        auto buf = d.allocate(std::max<uint64_t>(tableBytes[t], 1));
        if (!buf)
            return buf.error();
        dt.at[t] = buf->ptr();
        dt.owned.push_back(std::move(*buf));
        if (!tab.input)
            continue;
        std::vector<unsigned char> image(tableBytes[t]);
        writeDeviceImage(tab, float32, image.data());
        if (Status s = d.upload(dt.at[t], image.data(), tableBytes[t]); !s)
            return s;
    }
    if (packed.bytes)
        if (Status s = d.upload(block->ptr(), staging.data(), packed.bytes); !s)
            return s;
    dt.owned.push_back(std::move(*block));
    return Ok{};
}

// Work enqueued after a run's ops, given its device tables, before the run waits (the VALUE
// phase of a solve).
using AfterRun = std::function<Status(const DeviceTables &, StreamHandle)>;

// In core: every table uploaded or computed on the device, where it stays for the caller.
Result<DeviceTables> runInCore(const TensorProgram &program, Prepared &p,
                               const GpuExecOptions &options, GpuExecStats &st,
                               const AfterRun &after = {}) {
    Device &d = *p.device;
    auto t0 = std::chrono::steady_clock::now();
    DeviceTables dt;
    dt.at.resize(program.tables.size());
    const bool float32 = p.kernels.float32;
    if (Status s = uploadInputs(d, program, float32, dt); !s)
        return s.error();
    // Every op's list of input addresses, in one device array filled by one copy.
    std::vector<DevicePtr> lists;
    std::vector<uint64_t> listAt(program.ops.size());
    for (size_t o = 0; o < program.ops.size(); ++o) {
        listAt[o] = lists.size() * sizeof(DevicePtr);
        for (uint32_t in : program.ops[o].inputs)
            lists.push_back(dt.at[in]);
    }
    auto listBuf = uploadArray(d, lists);
    if (!listBuf)
        return listBuf.error();
    // A level's small ops of one generic kernel run as one launch (fused_launch.h).
    auto fused = FusedLaunches::upload(
        d, program, p.modules, launchUnits(program, p.modules),
        [&](uint32_t o) { return listBuf->ptr() + listAt[o]; },
        [&](uint32_t o) { return dt.at[program.ops[o].output]; });
    if (!fused)
        return fused.error();
    if (Status s = d.synchronize(); !s)
        return s.error();
    st.uploadMs = msSince(t0);

    for (const std::vector<uint32_t> &ops : fused->units().ops) {
        for (uint32_t o : ops)
            st.tableBytes += opTableBytes(program, o, float32 ? sizeof(float) : sizeof(double));
        const uint32_t o = ops[0];
        const uint64_t rows = program.tables[program.ops[o].output].entries();
        const uint64_t step = launchChunkRows(p.modules.rowGroup(o), options.chunkRows);
        st.launches += ops.size() > 1 ? 1 : (rows + step - 1) / step;
    }
    t0 = std::chrono::steady_clock::now();
    const EnqueueOp enqueueOp = [&](uint32_t o, StreamHandle stream) -> Status {
        const uint32_t out = program.ops[o].output;
        return launchOpRows(d, p.modules, program, o, p.kernels, options.chunkRows,
                            listBuf->ptr() + listAt[o], dt.at[out], 0,
                            program.tables[out].entries(), stream);
    };
    const EnqueueOp enqueueUnit = [&](uint32_t unit, StreamHandle stream) {
        return fused->enqueue(d, program, p.modules, p.kernels, unit, enqueueOp, stream);
    };
    AfterOps afterOps;
    if (after)
        afterOps = [&](StreamHandle stream) { return after(dt, stream); };
    if (!options.switches.profilePath.empty()) { // diagnostic: each op alone, timed
        if (Status s = profileOps(d, program, enqueueOp, options.switches.profilePath.c_str(),
                                  float32 ? sizeof(float) : sizeof(double));
            !s)
            return s.error();
        if (afterOps)
            if (Status s = afterOps(nullptr); !s)
                return s.error();
    } else {
        LevelLauncher launcher(d);
        LevelLaunchStats ls;
        // A fork and a join per level, or streams planned from the buckets' dependencies.
        if (Status s = launcher.run(fused->units().levels, enqueueUnit,
                                    options.switches.graphs.value_or(false), &ls, afterOps,
                                    options.switches.plannedStreams
                                        ? std::span<const std::vector<uint32_t>>(
                                              fused->units().producers)
                                        : std::span<const std::vector<uint32_t>>{});
            !s)
            return s.error();
        st.graph = ls.graph;
        st.graphCaptureMs = ls.captureMs;
        st.levelJoins = ls.joins;
    }
    st.kernelMs = msSince(t0); // with `after`'s work: the caller takes its part out
    return dt;
}

// The computed tables the caller wants (program.fetch; every one where it is empty), through the
// GPU's pinned staging (staged_copies.h) into fresh vectors: a plain copy into pageable memory ran
// at about 1 GB/s, most of an in-core run's time.
Result<std::vector<std::vector<double>>> downloadTables(Device &d, const TensorProgram &program,
                                                        std::span<const DevicePtr> at,
                                                        bool float32) {
    auto staging = StagedCopies::of(d);
    if (!staging)
        return staging.error();
    std::vector<std::vector<double>> computed(program.tables.size());
    std::vector<bool> wanted(program.tables.size(), program.fetch.empty());
    for (uint32_t t : program.fetch)
        wanted[t] = true;
    std::vector<float> narrow;
    for (size_t t = 0; t < program.tables.size(); ++t) {
        if (program.tables[t].input || !wanted[t])
            continue;
        const uint64_t entries = program.tables[t].entries();
        reserveOnHugePages(computed[t], entries);
        computed[t].resize(entries);
        if (float32) {
            narrow.resize(entries);
            ZBDDC_TRY((*staging)->download(narrow.data(), at[t], entries * sizeof(float), nullptr));
            ZBDDC_TRY(d.synchronize());
            std::copy(narrow.begin(), narrow.end(), computed[t].begin()); // exact: integers < 2^24
        } else {
            ZBDDC_TRY((*staging)->download(computed[t].data(), at[t], entries * sizeof(double),
                                           nullptr));
        }
    }
    ZBDDC_TRY(d.synchronize());
    return computed;
}

} // namespace

Result<std::vector<std::vector<double>>> runTensorProgramCuda(const TensorProgram &program,
                                                              const GpuExecOptions &options,
                                                              GpuExecStats *stats) {
    GpuExecStats local;
    GpuExecStats &st = stats ? *stats : local;
    auto p = prepare(program, options, st);
    if (!p)
        return p.error();
    if (p->plan.outOfCore) {
        auto tables = runOutOfCore(program, *p, options, st);
        if (!tables)
            return tables.error();
        std::vector<std::vector<double>> computed = tables->takeComputed();
        if (p->relaid)
            restoreLayouts(program, *p->relaid, computed);
        return computed;
    }
    auto buffers = runInCore(program, *p, options, st);
    if (!buffers)
        return buffers.error();

    const auto t0 = std::chrono::steady_clock::now();
    auto computed = downloadTables(*p->device, program, buffers->at, p->kernels.float32);
    st.downloadMs = msSince(t0);
    return computed;
}

Result<double> solveTensorProgramCuda(const TensorProgram &program,
                                      std::vector<uint32_t> &assignment,
                                      const GpuExecOptions &options, GpuExecStats *stats) {
    GpuExecStats local;
    GpuExecStats &st = stats ? *stats : local;
    auto p = prepare(program, options, st);
    if (!p)
        return p.error();
    if (p->plan.outOfCore) { // the tables are on the host already: decode there
        auto tables = runOutOfCore(program, *p, options, st);
        if (!tables)
            return tables.error();
        const auto t0 = std::chrono::steady_clock::now();
        // The program that ran: a relaid one differs only in its tables' layouts, which the walk
        // reads through their scopes, so it picks the same values.
        const TensorProgram &ran = p->relaid ? *p->relaid : program;
        const RowValue value = [&](uint32_t id, uint64_t row) { return tables->value(id, row); };
        const double optimum = programResult(ran, value);
        recoverAssignment(ran, value, assignment);
        st.valueMs = msSince(t0);
        return optimum;
    }
    // The VALUE phase enqueued behind the ops: its plan is built while they run, and valueMs is
    // the device's time from their end to its kernel's end (the assignment's few bytes come back
    // within the run's one wait, counted with the kernels).
    double optimum = 0;
    const AfterRun decode = [&](const DeviceTables &dt, StreamHandle stream) -> Status {
        auto decoded = decodeOnDevice(*p->device, program, dt.at, assignment, p->kernels.float32,
                                      stream, &st.valueMs);
        if (!decoded)
            return decoded.error();
        optimum = *decoded;
        return Ok{};
    };
    if (auto buffers = runInCore(program, *p, options, st, decode); !buffers)
        return buffers.error();
    st.kernelMs -= st.valueMs;
    st.valueOnDevice = true;
    return optimum;
}

} // namespace zbddc::cuda
