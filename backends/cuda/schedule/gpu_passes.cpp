#include "backends/cuda/schedule/gpu_passes.h"

namespace zbddc {

const std::vector<PassEntry> &gpuSchedulePasses() {
    static const std::vector<PassEntry> passes = {
        {"split-phases", splitPhases, 1},
        {"partition", partitionBlocks, 0},
        {"preload", preloadShared, 2},
    };
    return passes;
}

PipelineOptions withGpuPasses(PipelineOptions options) {
    options.targetPasses = gpuSchedulePasses();
    return options;
}

} // namespace zbddc
