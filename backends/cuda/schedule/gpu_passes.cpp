#include "backends/cuda/schedule/gpu_passes.h"

#include <algorithm>
#include <cstdint>
#include <string_view>

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

PipelineOptions cudaPipelineOptions(int level, uint32_t lanes, uint32_t blockThreads,
                                    uint32_t narrowWork, bool keepValues, bool preload) {
    PipelineOptions o = withGpuPasses({});
    for (PassEntry &p : o.targetPasses)
        if (std::string_view(p.name) == "split-phases")
            p.fromLevel = 0;
    if (!preload)
        std::erase_if(o.targetPasses,
                      [](const PassEntry &p) { return std::string_view(p.name) == "preload"; });
    o.level = level;
    o.keepValues = keepValues;
    o.lanes = std::max(lanes, 1u);
    o.gridMinOps = narrowWork == UINT32_MAX ? UINT32_MAX : narrowWork + 1; // MAX: never the grid
    o.minBlockRun = 4;
    o.threadsPerBlock = blockThreads;
    o.device.maxThreadsPerBlock = blockThreads;
    o.device.sharedMemBytes = kCudaTileBytes;
    return o;
}

} // namespace zbddc
