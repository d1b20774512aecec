#include "backends/tensor/cuda/device/op_launch.h"

#include <algorithm>

namespace zbddc::cuda {

uint64_t streamingStoreMinBytes(const DeviceInfo &device) {
    return static_cast<uint64_t>(device.l2CacheBytes);
}

unsigned launchGrid(const DeviceInfo &device, const RowGroup &group, uint64_t threads,
                    unsigned block) {
    // A row-group kernel gets a thread per group: its grid-stride loop over 32 blocks per
    // multiprocessor ran the large joins 8-28% slower on an H200 (bench/results/NOTEBOOK.md).
    const uint64_t maxGrid =
        group.rows() > 1 ? 0x7fffffffu : static_cast<uint64_t>(device.multiprocessors) * 32;
    return static_cast<unsigned>(std::clamp<uint64_t>((threads + block - 1) / block, 1, maxGrid));
}

Status launchOpRows(Device &d, const TensorModules &modules, const TensorProgram &p, uint32_t o,
                    const TensorKernelOptions &kernels, uint64_t chunkRows, DevicePtr inputs,
                    DevicePtr out, uint64_t rowBegin, uint64_t rows, StreamHandle stream,
                    uint64_t elimBegin, uint64_t elimCount) {
    auto f = modules.function(o);
    if (!f)
        return f.error();
    const unsigned block = kernels.blockThreads;
    const RowGroup &group = modules.rowGroup(o);
    const bool warp = usesWarpPerRow(p, o, kernels);
    const uint64_t valueBytes = kernels.float32 ? sizeof(float) : sizeof(double);
    const uint64_t step = launchChunkRows(group, chunkRows);
    // A generic kernel's last argument is the op's shape, by value: its words are the bytes.
    std::span<const uint32_t> shape = modules.shapeOf(o);
    void *shapeArg = const_cast<uint32_t *>(shape.data());
    for (uint64_t done = 0; done < rows; done += step) {
        unsigned long long begin = rowBegin + done;
        unsigned long long count = std::min(step, rows - done);
        DevicePtr in = inputs;
        DevicePtr chunkOut = out + done * valueBytes;
        unsigned long long eBegin = elimBegin, eCount = elimCount;
        void *ranged[] = {&in, &chunkOut, &begin, &count, &eBegin, &eCount};
        void *shaped[] = {&in, &chunkOut, &begin, &count, shapeArg}; // 4 read where no shape
        void **args = kernels.eliminationRange ? ranged : shaped;
        const unsigned grid =
            launchGrid(d.info(), group, kernelThreads(group, warp, begin, count), block);
        if (Status l = d.launch(*f, {grid, block, 0}, args, stream); !l)
            return l;
    }
    return Ok{};
}

} // namespace zbddc::cuda
