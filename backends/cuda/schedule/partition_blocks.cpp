// Minato et al. 2011 §2: each level is cut into blocks B = Σ B_type of T threads from the device's
// shape: grid levels get about four waves of blocks per SM, a single-block level one block as wide
// as its widest type group, host levels one block per group.
#include "backends/cuda/schedule/gpu_passes.h"
#include "ir/circuit.h" // kNone

#include <algorithm>

namespace zbddc {

namespace {

uint32_t roundUp(uint32_t n, uint32_t m) {
    return (n + m - 1) / m * m;
}

} // namespace

void partitionBlocks(Schedule &s, const PipelineOptions &o, PassStats &st) {
    const DeviceShape &d = o.device;
    const uint32_t threads =
        std::min(roundUp(std::max(o.threadsPerBlock, 1u), d.warp), d.maxThreadsPerBlock);
    std::vector<uint32_t> levelBlockBegin{0}, blockOpBegin{0};
    const uint32_t lanes = std::max(o.lanes, 1u);
    uint32_t gridBlocks = 0, maxOpsPerThread = 0;
    for (uint32_t l = 0; l < s.numLevels(); ++l) {
        const auto phase = static_cast<Phase>(s.levelPhase[l]);
        const uint32_t width = s.levelOpBegin[l + 1] - s.levelOpBegin[l];
        uint32_t opsPerBlock = kNone;
        if (phase == Phase::Grid) {
            // Enough blocks for about four waves of `threads` threads on every SM; more work
            // items (an op's lanes) per thread only when the level is wider than that.
            const uint64_t work = uint64_t{width} * lanes, wave = 4ull * d.sms * threads;
            const auto perThread =
                static_cast<uint32_t>(std::max<uint64_t>(1, (work + wave - 1) / wave));
            opsPerBlock = std::max<uint32_t>(1, threads * perThread / lanes);
            s.levelThreads[l] = threads;
            maxOpsPerThread = std::max(maxOpsPerThread, perThread);
        } else if (phase == Phase::SingleBlock) {
            uint32_t widest = 0;
            for (uint32_t g = s.levelGroupBegin[l]; g < s.levelGroupBegin[l + 1]; ++g)
                widest = std::max(widest, s.groupOpBegin[g + 1] - s.groupOpBegin[g]);
            s.levelThreads[l] =
                std::min(roundUp(std::max(widest, 1u), d.warp), d.maxThreadsPerBlock);
        } else {
            s.levelThreads[l] = 0;
        }
        for (uint32_t g = s.levelGroupBegin[l]; g < s.levelGroupBegin[l + 1]; ++g) {
            const uint32_t begin = s.groupOpBegin[g], end = s.groupOpBegin[g + 1];
            // Equal shares (Minato et al. 2011 §2: "a roughly equal number of consecutive
            // operations").
            const uint32_t blocks =
                opsPerBlock == kNone ? 1 : (end - begin + opsPerBlock - 1) / opsPerBlock;
            for (uint32_t b = 1; b <= blocks; ++b)
                blockOpBegin.push_back(begin +
                                       static_cast<uint32_t>(uint64_t(end - begin) * b / blocks));
            if (phase == Phase::Grid)
                gridBlocks += blocks;
        }
        levelBlockBegin.push_back(static_cast<uint32_t>(blockOpBegin.size() - 1));
    }
    s.levelBlockBegin = std::move(levelBlockBegin);
    s.blockOpBegin = std::move(blockOpBegin);
    s.blockLoadBegin.assign(s.blockOpBegin.size(), 0);
    s.blockLoads.clear();
    st.add("blocks", s.numBlocks());
    st.add("grid blocks", gridBlocks);
    st.add("threads per grid block", threads);
    st.add("max work items per thread", maxOpsPerThread);
}

} // namespace zbddc
