// The table's CUDA entries where the build has no CUDA tensor backend (NVRTC was not found):
// "cuda" says so, "split" runs on the CPU as it does without a GPU.
#include "runtime/tensor/tensor_executor_entries.h"

namespace zbddc {

namespace {
const char *const kNoBackend = "this build has no CUDA backend (NVRTC was not found)";
} // namespace

Result<std::unique_ptr<TensorExecutor>> cudaTensorExecutor(const TensorExecutorOptions &) {
    return error(kNoBackend);
}

Result<std::vector<int>> resolveGpuRequest(std::string_view) {
    return error(kNoBackend);
}

Result<std::unique_ptr<TensorExecutor>> splitTensorExecutor(const TensorExecutorOptions &o) {
    return cpuTensorExecutor(o);
}

} // namespace zbddc
