// One op's kernel launched over a range of its output rows, in launches of at most `chunkRows`
// rows: what the GPU's TensorDevice runs per task (an op whole, a slice, an out-of-core chunk).
#pragma once

#include "backends/cuda/driver.h"
#include "backends/tensor/cuda/codegen/tensor_modules.h"

namespace zbddc::cuda {

// TensorKernelOptions::streamingStoreMinBytes for `device`: its L2 cache's size.
uint64_t streamingStoreMinBytes(const DeviceInfo &device);

// The blocks of `block` threads for `threads` threads of a kernel with row group `group`: a thread
// per group, else at most 32 blocks per multiprocessor (threads loop over the rest); at least one.
unsigned launchGrid(const DeviceInfo &device, const RowGroup &group, uint64_t threads,
                    unsigned block);

// `inputs`: the device array of the op's input addresses, `out` output row `rowBegin`'s. With
// kernels.eliminationRange, eliminated values [elimBegin, elimBegin + elimCount) only.
Status launchOpRows(Device &device, const TensorModules &modules, const TensorProgram &program,
                    uint32_t op, const TensorKernelOptions &kernels, uint64_t chunkRows,
                    DevicePtr inputs, DevicePtr out, uint64_t rowBegin, uint64_t rows,
                    StreamHandle stream, uint64_t elimBegin = 0, uint64_t elimCount = 0);

} // namespace zbddc::cuda
