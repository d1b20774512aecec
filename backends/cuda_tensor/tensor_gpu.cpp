#include "backends/cuda_tensor/tensor_gpu.h"

#include "backends/cuda/driver.h"
#include "backends/cuda/nvrtc.h"

#include <algorithm>
#include <chrono>

namespace zbddc::cuda {

namespace {
double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// A complete host copy of an input table (sparse ones expanded).
std::vector<double> denseValues(const Table &tab) {
    if (!tab.sparse)
        return tab.values;
    std::vector<double> dense(tab.entries(), tab.defaultValue);
    for (size_t r = 0; r < tab.rows.size(); ++r)
        dense[tab.rows[r]] = tab.values[r];
    return dense;
}

unsigned gridFor(uint64_t rows, bool warp, unsigned block, unsigned maxGrid) {
    const uint64_t threads = rows * (warp ? 32 : 1);
    return static_cast<unsigned>(std::clamp<uint64_t>((threads + block - 1) / block, 1, maxGrid));
}

// The out-of-core path (seed 002 §V): ops one after another in level order, every table on the
// host; per op, its inputs uploaded, then chunk c computed into buffer c % inFlight on stream
// c % inFlight and copied back on the same stream, so chunk c+1's kernel (another stream) runs
// while chunk c is copied; a buffer is reused only after its stream's copy (stream order).
Result<std::vector<std::vector<double>>> runChunked(Device &d, const Module &module,
                                                    const TensorProgram &program,
                                                    const ChunkPlan &plan,
                                                    const GpuExecOptions &options,
                                                    GpuExecStats &st) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::vector<double>> host(program.tables.size());
    for (size_t t = 0; t < program.tables.size(); ++t)
        if (program.tables[t].input)
            host[t] = denseValues(program.tables[t]);
        else
            host[t].resize(program.tables[t].entries());
    std::vector<StreamHandle> streams;
    const unsigned block = options.kernels.blockThreads;
    const unsigned maxGrid = static_cast<unsigned>(d.info().multiprocessors) * 32;
    for (const auto &level : program.levels)
        for (uint32_t o : level) {
            const TensorOp &op = program.ops[o];
            const OpChunkPlan &cp = plan.ops[o];
            std::vector<DeviceBuffer> inputs;
            std::vector<DevicePtr> ptrs;
            for (uint32_t in : op.inputs) {
                auto buf = d.allocate(std::max<size_t>(host[in].size(), 1) * sizeof(double));
                if (!buf)
                    return buf.error();
                if (Status s = d.upload(buf->ptr(), host[in].data(), host[in].size() * sizeof(double));
                    !s)
                    return s.error();
                ptrs.push_back(buf->ptr());
                inputs.push_back(std::move(*buf));
            }
            auto list = d.allocate(std::max<size_t>(ptrs.size(), 1) * sizeof(DevicePtr));
            if (!list)
                return list.error();
            if (!ptrs.empty())
                if (Status s = d.upload(list->ptr(), ptrs.data(), ptrs.size() * sizeof(DevicePtr)); !s)
                    return s.error();
            std::vector<DeviceBuffer> chunkBuffers;
            for (uint32_t i = 0; i < cp.inFlight; ++i) {
                auto buf = d.allocate(cp.chunkRows * sizeof(double));
                if (!buf)
                    return buf.error();
                chunkBuffers.push_back(std::move(*buf));
            }
            while (streams.size() < cp.inFlight) {
                auto s = d.createStream();
                if (!s)
                    return s.error();
                streams.push_back(*s);
            }
            // Inputs were uploaded on the default stream; the chunk streams must see them.
            if (Status s = d.synchronize(); !s)
                return s.error();
            auto f = module.function(tensorKernelName(o));
            if (!f)
                return f.error();
            const bool warp = usesWarpPerRow(program, o, options.kernels);
            double *outHost = host[op.output].data();
            for (uint64_t c = 0; c < cp.chunks; ++c) {
                const uint32_t slot = static_cast<uint32_t>(c % cp.inFlight);
                unsigned long long rowBegin = c * cp.chunkRows;
                unsigned long long count = cp.chunkRows;
                DevicePtr in = list->ptr();
                DevicePtr out = chunkBuffers[slot].ptr();
                void *args[] = {&in, &out, &rowBegin, &count};
                if (Status s = d.launch(*f, {gridFor(count, warp, block, maxGrid), block, 0}, args,
                                        streams[slot]);
                    !s)
                    return s.error();
                if (Status s = d.download(outHost + rowBegin, out, count * sizeof(double),
                                          streams[slot]);
                    !s)
                    return s.error();
                ++st.chunks;
            }
            for (uint32_t i = 0; i < cp.inFlight; ++i)
                if (Status s = d.synchronize(streams[i]); !s)
                    return s.error();
        }
    for (StreamHandle s : streams)
        (void)d.destroyStream(s);
    st.kernelMs = msSince(t0); // uploads, kernels and copies overlap here: one figure
    for (size_t t = 0; t < program.tables.size(); ++t)
        if (program.tables[t].input)
            host[t].clear(); // the result layout: computed tables only
    return host;
}
} // namespace

Result<std::vector<std::vector<double>>> runTensorProgramCuda(const TensorProgram &program,
                                                              const GpuExecOptions &options,
                                                              GpuExecStats *stats) {
    GpuExecStats local;
    GpuExecStats &st = stats ? *stats : local;
    if (Status s = program.verify(); !s)
        return s.error();
    if (Status s = cudaAvailable(); !s)
        return s.error();
    auto device = Device::open(0);
    if (!device)
        return device.error();
    Device &d = **device;
    st.device = d.info().name + " (" + d.info().arch() + ")";

    const uint64_t budget =
        options.memoryBudgetBytes
            ? options.memoryBudgetBytes
            : static_cast<uint64_t>(options.memoryFraction * static_cast<double>(d.info().totalMemory));
    auto plan = planChunks(program, budget, options.maxInFlight);
    if (!plan)
        return plan.error();
    st.outOfCore = plan->outOfCore;

    auto t0 = std::chrono::steady_clock::now();
    NvrtcOptions nv;
    nv.arch = d.info().arch();
    auto ptx = compileToPtx(generateTensorProgramSource(program, options.kernels),
                            "zbddc_tensor_program.cu", nv);
    if (!ptx)
        return ptx.error();
    st.compiledFromCache = ptx->fromCache;
    auto module = d.loadModule(ptx->ptx);
    if (!module)
        return module.error();
    st.compileMs = msSince(t0);
    if (plan->outOfCore)
        return runChunked(d, *module, program, *plan, options, st);

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
        auto buf = d.allocate(std::max<size_t>(ptrs.size(), 1) * sizeof(DevicePtr));
        if (!buf)
            return buf.error();
        if (!ptrs.empty())
            if (Status s = d.upload(buf->ptr(), ptrs.data(), ptrs.size() * sizeof(DevicePtr)); !s)
                return s.error();
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
            auto f = module->function(tensorKernelName(o));
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
    for (size_t t = 0; t < program.tables.size(); ++t) {
        if (program.tables[t].input)
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
