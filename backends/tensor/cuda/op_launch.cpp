#include "backends/tensor/cuda/op_launch.h"

#include <algorithm>

namespace zbddc::cuda {

Status launchOpRows(Device &d, const TensorModules &modules, const TensorProgram &p, uint32_t o,
                    const TensorKernelOptions &kernels, uint64_t chunkRows, DevicePtr inputs,
                    DevicePtr out, uint64_t rowBegin, uint64_t rows, StreamHandle stream) {
    auto f = modules.function(o);
    if (!f)
        return f.error();
    const unsigned block = kernels.blockThreads;
    const unsigned maxGrid = static_cast<unsigned>(d.info().multiprocessors) * 32;
    const uint64_t valueBytes = kernels.float32 ? sizeof(float) : sizeof(double);
    const uint64_t step = launchChunkRows(p, o, kernels, chunkRows);
    // A generic kernel's last argument is the op's shape, by value: its words are the bytes.
    std::span<const uint32_t> shape = modules.shapeOf(o);
    void *shapeArg = const_cast<uint32_t *>(shape.data());
    for (uint64_t done = 0; done < rows; done += step) {
        unsigned long long begin = rowBegin + done;
        unsigned long long count = std::min(step, rows - done);
        DevicePtr in = inputs;
        DevicePtr chunkOut = out + done * valueBytes;
        void *args[] = {&in, &chunkOut, &begin, &count, shapeArg}; // 4 read where no shape
        const uint64_t threads = kernelThreads(p, o, kernels, begin, count);
        const unsigned grid =
            static_cast<unsigned>(std::clamp<uint64_t>((threads + block - 1) / block, 1, maxGrid));
        if (Status l = d.launch(*f, {grid, block, 0}, args, stream); !l)
            return l;
    }
    return Ok{};
}

} // namespace zbddc::cuda
