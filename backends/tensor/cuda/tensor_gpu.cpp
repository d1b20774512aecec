#include "backends/tensor/cuda/tensor_gpu.h"

#include "backends/cuda/driver.h"
#include "backends/tensor/cuda/chunk_layout.h"
#include "backends/tensor/cuda/level_launch.h"
#include "backends/tensor/cuda/op_profile.h"
#include "backends/tensor/cuda/tensor_gpu_chunked.h"
#include "backends/tensor/cuda/tensor_modules.h"
#include "backends/tensor/cuda/value_phase_gpu.h"
#include "ir/tensor_interpret.h"
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
    auto device = openDevice();
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
            if (op.kind == TensorOpKind::InverseMax)
                return error("this program's tables exceed the device memory budget (" +
                             std::to_string(budget >> 20) +
                             " MiB) and its rescaling ops do not run out of core");
    p.kernels = options.kernels;
    for (const OpChunkPlan &op : p.plan.ops)
        p.kernels.eliminationRange |= op.elimSlices > 1;

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

// Out of core: the tables come back on the host, in the caller's layout.
Result<std::vector<std::vector<double>>> runOutOfCore(const TensorProgram &program, Prepared &p,
                                                      const GpuExecOptions &options,
                                                      GpuExecStats &st) {
    const TensorProgram &run = p.relaid ? *p.relaid : program;
    GpuExecOptions chunked = options;
    chunked.kernels = p.kernels;
    auto computed = runChunkedOnDevice(*p.device, p.modules, run, p.plan, chunked, st);
    if (computed && p.relaid)
        restoreLayouts(program, run, *computed);
    return computed;
}

// In core: every table uploaded or computed on the device, where it stays for the caller.
Result<std::vector<DeviceBuffer>> runInCore(const TensorProgram &program, Prepared &p,
                                            const GpuExecOptions &options, GpuExecStats &st) {
    Device &d = *p.device;
    auto t0 = std::chrono::steady_clock::now();
    std::vector<DeviceBuffer> buffers(program.tables.size());
    for (size_t t = 0; t < program.tables.size(); ++t) {
        const Table &tab = program.tables[t];
        auto buf = d.allocate(std::max<uint64_t>(tab.entries(), 1) * sizeof(double));
        if (!buf)
            return buf.error();
        buffers[t] = std::move(*buf);
        if (!tab.input)
            continue;
        std::vector<double> dense;
        const std::vector<double> *src = &tab.values;
        if (tab.sparse) {
            dense.assign(tab.entries(), tab.defaultValue);
            for (size_t r = 0; r < tab.rows.size(); ++r)
                dense[tab.rows[r]] = tab.values[r];
            src = &dense;
        }
        if (Status s = d.upload(buffers[t].ptr(), src->data(), src->size() * sizeof(double)); !s)
            return s.error();
    }
    // Per op, the device array of its input pointers.
    std::vector<DeviceBuffer> inputLists(program.ops.size());
    for (size_t o = 0; o < program.ops.size(); ++o) {
        std::vector<DevicePtr> ptrs;
        for (uint32_t in : program.ops[o].inputs)
            ptrs.push_back(buffers[in].ptr());
        auto buf = uploadArray(d, ptrs);
        if (!buf)
            return buf.error();
        inputLists[o] = std::move(*buf);
    }
    if (Status s = d.synchronize(); !s)
        return s.error();
    st.uploadMs = msSince(t0);

    for (uint32_t o = 0; o < program.ops.size(); ++o)
        st.tableBytes += opTableBytes(program, o);
    t0 = std::chrono::steady_clock::now();
    const unsigned block = options.kernels.blockThreads;
    const unsigned maxGrid = static_cast<unsigned>(d.info().multiprocessors) * 32;
    const EnqueueOp enqueue = [&](uint32_t o, StreamHandle stream) -> Status {
        auto f = p.modules.function(o);
        if (!f)
            return f.error();
        const bool warp = usesWarpPerRow(program, o, options.kernels);
        const uint64_t rows = program.tables[program.ops[o].output].entries();
        for (uint64_t begin = 0; begin < rows; begin += options.chunkRows) {
            unsigned long long rowBegin = begin;
            unsigned long long count = std::min(options.chunkRows, rows - begin);
            DevicePtr in = inputLists[o].ptr();
            DevicePtr out = buffers[program.ops[o].output].ptr() + begin * sizeof(double);
            void *args[] = {&in, &out, &rowBegin, &count};
            const uint64_t threads = count * (warp ? 32 : 1);
            const unsigned grid = static_cast<unsigned>(
                std::clamp<uint64_t>((threads + block - 1) / block, 1, maxGrid));
            if (Status s = d.launch(*f, {grid, block, 0}, args, stream); !s)
                return s;
            ++st.launches;
        }
        return Ok{};
    };
    if (const char *path = opProfilePath()) { // diagnostic: each op alone, timed
        if (Status s = profileOps(d, program, enqueue, path); !s)
            return s.error();
    } else {
        LevelLauncher launcher(d);
        LevelLaunchStats ls;
        if (Status s = launcher.run(program.levels, enqueue,
                                     options.useGraphs && gpuGraphsWanted(), &ls); !s)
            return s.error();
        st.graph = ls.graph;
        st.graphCaptureMs = ls.captureMs;
        st.levelJoins = ls.joins;
    }
    st.kernelMs = msSince(t0);
    return buffers;
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
    if (p->plan.outOfCore)
        return runOutOfCore(program, *p, options, st);
    auto buffers = runInCore(program, *p, options, st);
    if (!buffers)
        return buffers.error();

    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::vector<double>> computed(program.tables.size());
    std::vector<bool> wanted(program.tables.size(), program.fetch.empty());
    for (uint32_t t : program.fetch)
        wanted[t] = true;
    for (size_t t = 0; t < program.tables.size(); ++t) {
        if (program.tables[t].input || !wanted[t])
            continue;
        computed[t].resize(program.tables[t].entries());
        if (Status s = p->device->download(computed[t].data(), (*buffers)[t].ptr(),
                                           computed[t].size() * sizeof(double));
            !s)
            return s.error();
    }
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
        auto computed = runOutOfCore(program, *p, options, st);
        if (!computed)
            return computed.error();
        const auto t0 = std::chrono::steady_clock::now();
        const double optimum = programResult(program, *computed);
        recoverAssignment(program, *computed, assignment);
        st.valueMs = msSince(t0);
        return optimum;
    }
    auto buffers = runInCore(program, *p, options, st);
    if (!buffers)
        return buffers.error();
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<DevicePtr> tables;
    for (const DeviceBuffer &b : *buffers)
        tables.push_back(b.ptr());
    auto optimum = decodeOnDevice(*p->device, program, tables, assignment);
    st.valueMs = msSince(t0);
    st.valueOnDevice = true;
    return optimum;
}

} // namespace zbddc::cuda
