// Minato et al. 2011 §2: inside a level, ops of one type together (so a warp never mixes types),
// sorted by their first x operand (so shared-memory preload tiles are contiguous), and each level
// cut into blocks B = Σ B_type of T threads from the device's shape.
#include "compiler/passes/pass.h"
#include "compiler/passes/schedule_edit.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace zbddc {

namespace {

uint32_t firstX(const Schedule &s, uint32_t op) {
    const uint32_t t = s.opType[op];
    uint32_t k = s.opOperandBegin[op];
    for (uint32_t c = s.typeCodeBegin[t]; c < s.typeCodeBegin[t + 1]; ++c) {
        if (s.typeCode[c] == static_cast<uint32_t>(TemplateStep::LoadX))
            return s.operands[k];
        k += s.typeCode[c] == static_cast<uint32_t>(TemplateStep::LoadF);
    }
    return kNone;
}

uint32_t roundUp(uint32_t n, uint32_t m) {
    return (n + m - 1) / m * m;
}

} // namespace

void groupByType(Schedule &s, const PipelineOptions &, PassStats &st) {
    // Most frequent type first (typeA before typeB on ZBDD circuits, as in Minato et al. 2011 §2).
    std::vector<uint32_t> frequency(s.numTypes(), 0);
    for (uint32_t t : s.opType)
        ++frequency[t];
    std::vector<uint32_t> rank(s.numTypes());
    std::vector<uint32_t> byFreq(s.numTypes());
    std::iota(byFreq.begin(), byFreq.end(), 0);
    std::stable_sort(byFreq.begin(), byFreq.end(),
                     [&](uint32_t p, uint32_t q) { return frequency[p] > frequency[q]; });
    for (uint32_t r = 0; r < byFreq.size(); ++r)
        rank[byFreq[r]] = r;

    std::vector<uint32_t> order(s.numOps()), key(s.numOps());
    std::iota(order.begin(), order.end(), 0);
    for (uint32_t i = 0; i < s.numOps(); ++i)
        key[i] = firstX(s, i);
    const std::vector<uint32_t> level = levelOfOps(s);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t p, uint32_t q) {
        if (level[p] != level[q])
            return level[p] < level[q];
        if (rank[s.opType[p]] != rank[s.opType[q]])
            return rank[s.opType[p]] < rank[s.opType[q]];
        return key[p] < key[q];
    });
    std::vector<uint32_t> newLevel(order.size());
    for (size_t k = 0; k < order.size(); ++k)
        newLevel[k] = level[order[k]];
    std::vector<uint32_t> phases = s.levelPhase;
    rebuildOps(s, order, newLevel, s.numLevels());
    s.levelPhase = phases;
    st.add("groups", s.numGroups());
    st.add("mean types per level", s.numLevels() ? double(s.numGroups()) / s.numLevels() : 0);
}

void partitionBlocks(Schedule &s, const PipelineOptions &o, PassStats &st) {
    const DeviceShape &d = o.device;
    const uint32_t threads =
        std::min(roundUp(std::max(o.threadsPerBlock, 1u), d.warp), d.maxThreadsPerBlock);
    std::vector<uint32_t> levelBlockBegin{0}, blockOpBegin{0};
    uint32_t gridBlocks = 0, maxOpsPerThread = 0;
    for (uint32_t l = 0; l < s.numLevels(); ++l) {
        const auto phase = static_cast<Phase>(s.levelPhase[l]);
        const uint32_t width = s.levelOpBegin[l + 1] - s.levelOpBegin[l];
        uint32_t opsPerBlock = kNone;
        if (phase == Phase::Grid) {
            // Enough blocks for about four waves of `threads` threads on every SM; more ops per
            // thread only when the level is wider than that.
            const uint32_t perThread =
                std::max<uint32_t>(1, (width + 4 * d.sms * threads - 1) / (4 * d.sms * threads));
            opsPerBlock = threads * perThread;
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
    st.add("max ops per thread", maxOpsPerThread);
}

} // namespace zbddc
