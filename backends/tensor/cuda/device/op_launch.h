// One op's kernel launched over a range of its output rows, in launches of at most `chunkRows`
// rows (a grid of one thread, or one warp, per row, capped at 32 blocks per multiprocessor; one
// thread per row group, uncapped): what the GPU's TensorDevice (gpu_tensor_device.h) runs per
// task — an op whole, a slice of it, or an out-of-core step's chunk. Tables of doubles, or of
// floats with kernels.float32. An op of a generic kernel (generic_tensor_kernels.h) gets its shape
// words as the last argument.
#pragma once

#include "backends/cuda/driver.h"
#include "backends/tensor/cuda/codegen/tensor_modules.h"

namespace zbddc::cuda {

// TensorKernelOptions::streamingStoreMinBytes for `device`: its L2 cache's size.
uint64_t streamingStoreMinBytes(const DeviceInfo &device);

// The blocks of `block` threads for a launch of `threads` threads of a kernel with row group
// `group`: one thread per group for a row-group kernel, else at most 32 blocks per
// multiprocessor (the kernel's threads loop over the rest). At least one.
unsigned launchGrid(const DeviceInfo &device, const RowGroup &group, uint64_t threads,
                    unsigned block);

// `inputs` is the device array of the op's input addresses (tensor_kernels.h: whole-table
// offsets), `out` the address of output row `rowBegin`. With kernels.eliminationRange the kernels
// reduce eliminated values [elimBegin, elimBegin + elimCount) only.
Status launchOpRows(Device &device, const TensorModules &modules, const TensorProgram &program,
                    uint32_t op, const TensorKernelOptions &kernels, uint64_t chunkRows,
                    DevicePtr inputs, DevicePtr out, uint64_t rowBegin, uint64_t rows,
                    StreamHandle stream, uint64_t elimBegin = 0, uint64_t elimCount = 0);

} // namespace zbddc::cuda
