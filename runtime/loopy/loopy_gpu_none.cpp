// Builds without NVRTC: no GPU executor, and the reason says so.
#include "runtime/loopy/loopy_gpu.h"

namespace zbddc {

Status loopyGpuUsable() {
    return error("this build has no CUDA backend (NVRTC not found)");
}

Result<LoopyGpuRun> runLoopyBpGpu(const FactorGraph &, std::span<const Evidence>,
                                  const LoopyOptions &, std::optional<LoopyGpuDesign>) {
    return error("this build has no CUDA backend (NVRTC not found)");
}

} // namespace zbddc
