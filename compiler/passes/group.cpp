// Minato et al. 2011 §2: inside a level, ops of one type together (so a warp never mixes types),
// sorted by their first x operand (so shared-memory preload tiles are contiguous).
#include "compiler/passes/passes.h"
#include "ir/schedule_edit.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace zbddc {

namespace {

uint32_t firstX(const Schedule &s, uint32_t op) {
    uint32_t x = kNone;
    forEachLeaf(s, op, [&](TemplateStep step, uint32_t k) {
        if (step == TemplateStep::LoadX && x == kNone)
            x = s.operands[k];
    });
    return x;
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

} // namespace zbddc
