#include "backends/tensor/cuda/tensor_gpu.h"

#include "backends/cuda/driver.h"
#include "backends/tensor/cuda/tensor_modules.h"
#include "backends/tensor/cuda/chunk_layout.h"
#include "backends/tensor/cuda/tensor_gpu_chunked.h"
#include "support/timer.h"

#include <algorithm>
#include <chrono>
#include <optional>

namespace zbddc::cuda {

Result<std::vector<std::vector<double>>> runTensorProgramCuda(const TensorProgram &program,
                                                              const GpuExecOptions &options,
                                                              GpuExecStats *stats) {
    GpuExecStats local;
    GpuExecStats &st = stats ? *stats : local;
    if (Status s = program.verify(); !s)
        return s.error();
    auto device = openDevice();
    if (!device)
        return device.error();
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
    std::optional<TensorProgram> relaid;
    if ((!plan || plan->outOfCore) && needsRelayout(program)) {
        relaid = relayoutForChunks(program);
        plan = planChunks(*relaid, po);
        st.relaid = true;
    }
    if (!plan)
        return plan.error();
    const TensorProgram &run = relaid ? *relaid : program;
    st.outOfCore = plan->outOfCore;
    // The chunked path splits reductions into ⊕-combined partial results, which a reciprocal
    // does not survive; batched junction trees size their batches to fit instead.
    if (plan->outOfCore)
        for (const TensorOp &op : program.ops)
            if (op.kind == TensorOpKind::InverseMax)
                return error("this program's tables exceed the device memory budget (" +
                             std::to_string(budget >> 20) +
                             " MiB) and its rescaling ops do not run out of core");
    TensorKernelOptions kernels = options.kernels;
    for (const OpChunkPlan &op : plan->ops)
        kernels.eliminationRange |= op.elimSlices > 1;

    auto t0 = std::chrono::steady_clock::now();
    auto compiled = TensorModules::compile(d, run, kernels);
    if (!compiled)
        return compiled.error();
    st.compiledFromCache = compiled->fromCache();
    const TensorModules &module = *compiled;
    st.compileMs = msSince(t0);
    if (plan->outOfCore) {
        GpuExecOptions chunked = options;
        chunked.kernels = kernels;
        auto computed = runChunkedOnDevice(d, module, run, *plan, chunked, st);
        if (computed && relaid)
            restoreLayouts(program, run, *computed);
        return computed;
    }

    t0 = std::chrono::steady_clock::now();
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

    t0 = std::chrono::steady_clock::now();
    const unsigned block = options.kernels.blockThreads;
    const unsigned maxGrid = static_cast<unsigned>(d.info().multiprocessors) * 32;
    std::vector<StreamHandle> streams;
    for (const auto &level : program.levels) {
        while (streams.size() < std::min<size_t>(level.size(), 8)) {
            auto s = d.createStream();
            if (!s)
                return s.error();
            streams.push_back(*s);
        }
        for (size_t i = 0; i < level.size(); ++i) {
            const uint32_t o = level[i];
            auto f = module.function(o);
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
                if (Status s = d.launch(*f, {grid, block, 0}, args, streams[i % streams.size()]);
                    !s)
                    return s.error();
            }
        }
        // The next level reads this level's outputs.
        for (StreamHandle s : streams)
            if (Status r = d.synchronize(s); !r)
                return r.error();
    }
    st.kernelMs = msSince(t0);

    t0 = std::chrono::steady_clock::now();
    std::vector<std::vector<double>> computed(program.tables.size());
    std::vector<bool> wanted(program.tables.size(), program.fetch.empty());
    for (uint32_t t : program.fetch)
        wanted[t] = true;
    for (size_t t = 0; t < program.tables.size(); ++t) {
        if (program.tables[t].input || !wanted[t])
            continue;
        computed[t].resize(program.tables[t].entries());
        if (Status s = d.download(computed[t].data(), buffers[t].ptr(),
                                  computed[t].size() * sizeof(double));
            !s)
            return s.error();
    }
    for (StreamHandle s : streams)
        (void)d.destroyStream(s);
    st.downloadMs = msSince(t0);
    return computed;
}

} // namespace zbddc::cuda
