// Minato et al. 2011 §2: levels of independent ops. levelize puts every op at its earliest level
// (ASAP), so the number of levels is the longest path; justifyLevels moves ops with slack (up to
// their ALAP level) so that level sizes even out and fill whole warps.
#include "compiler/passes/passes.h"
#include "ir/levels.h"
#include "ir/schedule_edit.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace zbddc {

namespace {

// Readers of each op in CSR form (op -> ops reading its output).
struct Readers {
    std::vector<uint32_t> begin, ops;
};

Readers readersOf(const Schedule &s, const std::vector<uint32_t> &producer) {
    Readers r{std::vector<uint32_t>(s.numOps() + 1, 0), {}};
    for (uint32_t i = 0; i < s.numOps(); ++i)
        for (uint32_t k = s.opOperandBegin[i]; k < s.opOperandBegin[i + 1]; ++k)
            if (producer[s.operands[k]] != kNone)
                ++r.begin[producer[s.operands[k]] + 1];
    std::partial_sum(r.begin.begin(), r.begin.end(), r.begin.begin());
    r.ops.resize(r.begin.back());
    std::vector<uint32_t> fill(r.begin.begin(), r.begin.end() - 1);
    for (uint32_t i = 0; i < s.numOps(); ++i)
        for (uint32_t k = s.opOperandBegin[i]; k < s.opOperandBegin[i + 1]; ++k)
            if (producer[s.operands[k]] != kNone)
                r.ops[fill[producer[s.operands[k]]]++] = i;
    return r;
}

// Earliest level of each op: its predecessors are the ops writing its operands (ops are in
// topological order).
std::vector<uint32_t> asapLevels(const Schedule &s, const std::vector<uint32_t> &producer) {
    return longestPathLevels(s.numOps(), [&](uint32_t i, auto visit) {
        for (uint32_t k = s.opOperandBegin[i]; k < s.opOperandBegin[i + 1]; ++k)
            if (const uint32_t p = producer[s.operands[k]]; p != kNone)
                visit(p);
    });
}

// Reorders ops by level (stable, so topological order holds within a level).
void applyLevels(Schedule &s, const std::vector<uint32_t> &level, uint32_t numLevels) {
    std::vector<uint32_t> order(s.numOps());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t p, uint32_t q) { return level[p] < level[q]; });
    std::vector<uint32_t> newLevel(order.size());
    for (size_t k = 0; k < order.size(); ++k)
        newLevel[k] = level[order[k]];
    rebuildOps(s, order, newLevel, numLevels);
}

// Per-level quality: warps issued (types padded to whole warps per level) and idle lanes.
struct Fill {
    double warps = 0, idleLanes = 0, maxWidth = 0;
};

Fill fillOf(const Schedule &s, const std::vector<uint32_t> &level, uint32_t numLevels,
            uint32_t warp) {
    std::vector<std::vector<uint32_t>> count(numLevels, std::vector<uint32_t>(s.numTypes(), 0));
    std::vector<uint32_t> width(numLevels, 0);
    for (uint32_t i = 0; i < s.numOps(); ++i) {
        ++count[level[i]][s.opType[i]];
        ++width[level[i]];
    }
    Fill f;
    for (uint32_t l = 0; l < numLevels; ++l) {
        for (uint32_t n : count[l]) {
            const double w = std::ceil(double(n) / warp);
            f.warps += w;
            f.idleLanes += w * warp - n;
        }
        f.maxWidth = std::max<double>(f.maxWidth, width[l]);
    }
    return f;
}

} // namespace

void levelize(Schedule &s, const PipelineOptions &, PassStats &st) {
    const std::vector<uint32_t> producer = producerOfSlots(s);
    const std::vector<uint32_t> level = asapLevels(s, producer);
    const uint32_t numLevels = s.numOps() ? *std::max_element(level.begin(), level.end()) + 1 : 0;
    applyLevels(s, level, numLevels);
    st.add("levels", numLevels);
    st.add("mean level width", numLevels ? double(s.numOps()) / numLevels : 0);
}

// Two strategies, both keeping the number of levels:
//  greedy  (Minato et al. 2011 §2): level by level, per type, postpone the ops beyond the last
//          whole warp to the next level when all of them have slack there.
//  balance: list scheduling — ops in topological order, each placed in the least-filled level of
//          its window [after its producers, ALAP], filling levels up to a target width that is a
//          whole number of warps.
void justifyLevels(Schedule &s, const PipelineOptions &o, PassStats &st) {
    const std::vector<uint32_t> producer = producerOfSlots(s);
    const Readers readers = readersOf(s, producer);
    std::vector<uint32_t> level = levelOfOps(s);
    const uint32_t numLevels = s.numLevels();
    if (numLevels == 0)
        return;
    const uint32_t warp = o.device.warp;
    std::vector<uint32_t> alap(s.numOps(), numLevels - 1);
    for (uint32_t i = s.numOps(); i-- > 0;)
        for (uint32_t k = readers.begin[i]; k < readers.begin[i + 1]; ++k)
            alap[i] = std::min(alap[i], alap[readers.ops[k]] - 1);
    const Fill before = fillOf(s, level, numLevels, warp);
    uint32_t moved = 0;

    if (o.justify == "greedy") {
        auto minReaderLevel = [&](uint32_t i) {
            uint32_t m = numLevels;
            for (uint32_t k = readers.begin[i]; k < readers.begin[i + 1]; ++k)
                m = std::min(m, level[readers.ops[k]]);
            return m;
        };
        std::vector<std::vector<uint32_t>> byLevel(numLevels);
        for (uint32_t i = 0; i < s.numOps(); ++i)
            byLevel[level[i]].push_back(i);
        for (uint32_t l = 0; l + 1 < numLevels; ++l) {
            for (uint32_t t = 0; t < s.numTypes(); ++t) {
                std::vector<uint32_t> movable;
                uint32_t count = 0;
                for (uint32_t i : byLevel[l]) {
                    if (s.opType[i] != t)
                        continue;
                    ++count;
                    if (alap[i] > l && minReaderLevel(i) > l + 1)
                        movable.push_back(i);
                }
                const uint32_t rest = count % warp;
                if (rest == 0 || movable.size() < rest || count < warp)
                    continue;
                movable.resize(rest);
                for (uint32_t i : movable) {
                    level[i] = l + 1;
                    byLevel[l + 1].push_back(i);
                }
                std::erase_if(byLevel[l], [&](uint32_t i) { return level[i] != l; });
                moved += rest;
            }
        }
    } else {
        // Per type, so that every type's group fills whole warps (groups never share a warp).
        std::vector<uint32_t> perType(s.numTypes(), 0), target(s.numTypes());
        for (uint32_t t : s.opType)
            ++perType[t];
        for (uint32_t t = 0; t < s.numTypes(); ++t)
            target[t] =
                static_cast<uint32_t>(std::ceil(double(perType[t]) / numLevels / warp)) * warp;
        std::vector<uint32_t> width(size_t(numLevels) * s.numTypes(), 0);
        for (uint32_t i = 0; i < s.numOps(); ++i) { // topological order: producers placed first
            const uint32_t t = s.opType[i];
            uint32_t earliest = 0;
            for (uint32_t k = s.opOperandBegin[i]; k < s.opOperandBegin[i + 1]; ++k)
                if (const uint32_t p = producer[s.operands[k]]; p != kNone)
                    earliest = std::max(earliest, level[p] + 1);
            // First level of the window with room below the target; else the one that ends a
            // partial warp soonest (most ops already in its last warp), else the earliest.
            uint32_t best = kNone;
            for (uint32_t l = earliest; l <= alap[i] && best == kNone; ++l)
                if (width[size_t(l) * s.numTypes() + t] < target[t])
                    best = l;
            if (best == kNone) {
                best = earliest;
                uint32_t bestFill = 0;
                for (uint32_t l = earliest; l <= alap[i]; ++l) {
                    const uint32_t fill = width[size_t(l) * s.numTypes() + t] % warp;
                    if (fill > bestFill) {
                        best = l;
                        bestFill = fill;
                    }
                }
            }
            moved += best != level[i];
            level[i] = best;
            ++width[size_t(best) * s.numTypes() + t];
        }
    }
    applyLevels(s, level, numLevels);
    const Fill after = fillOf(s, level, numLevels, warp);
    st.add("ops moved", moved);
    st.add("warps before", before.warps);
    st.add("warps after", after.warps);
    st.add("idle lanes before", before.idleLanes);
    st.add("idle lanes after", after.idleLanes);
    st.add("max width before", before.maxWidth);
    st.add("max width after", after.maxWidth);
}

} // namespace zbddc
