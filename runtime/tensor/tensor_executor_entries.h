// The factories that tensor_executor.cpp's table lists. The CUDA ones are defined by
// tensor_executor_cuda.cpp where the build has the CUDA tensor backend and by
// tensor_executor_no_cuda.cpp elsewhere (CMake picks the file, so no code tests a macro). Pick
// executors by name (tensor_executor.h), not through these.
#pragma once

#include "runtime/tensor/tensor_executor.h"

namespace zbddc {

Result<std::unique_ptr<TensorExecutor>> referenceTensorExecutor(const TensorExecutorOptions &);
Result<std::unique_ptr<TensorExecutor>> cpuTensorExecutor(const TensorExecutorOptions &);
Result<std::unique_ptr<TensorExecutor>> cudaTensorExecutor(const TensorExecutorOptions &);
// The CPU executor where no GPU is usable: a missing GPU is not an error for the split.
Result<std::unique_ptr<TensorExecutor>> splitTensorExecutor(const TensorExecutorOptions &);

} // namespace zbddc
