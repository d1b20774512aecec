// ASAP levels (Minato et al. 2011 §2: levels of independent ops, as many as the longest path):
// every item sits one level above its deepest predecessor, items without one at level 0. A
// Circuit's items are its nodes (leaves at 0); the levelize pass applies the same rule to a
// Schedule's ops, whose predecessors are the ops that write their operands.
#pragma once

#include "ir/circuit.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace zbddc {

// Items 0..n-1 in topological order; `forEachPredecessor(i, visit)` calls visit(p) for every
// predecessor p < i of item i.
template <class ForEachPredecessor>
std::vector<uint32_t> longestPathLevels(size_t n, ForEachPredecessor &&forEachPredecessor) {
    std::vector<uint32_t> level(n, 0);
    for (uint32_t i = 0; i < n; ++i)
        forEachPredecessor(i, [&](uint32_t p) { level[i] = std::max(level[i], level[p] + 1); });
    return level;
}

// The ASAP level of every node: leaves 0, an op one more than its deepest operand.
std::vector<uint32_t> asapLevels(const Circuit &circuit);

// The narrow ends of `levels` levels (Minato et al. 2011 §2's CPU preliminary and posterior
// phases): levels [0, pre) and [post, levels) hold at most `maxWidth` items each, the leading run
// first; pre <= post. `width(l)` is level l's item count.
struct NarrowEnds {
    uint32_t pre = 0, post = 0;
};
template <class Width> NarrowEnds narrowEnds(uint32_t levels, uint32_t maxWidth, Width &&width) {
    NarrowEnds e{0, levels};
    while (e.pre < levels && width(e.pre) <= maxWidth)
        ++e.pre;
    while (e.post > e.pre && width(e.post - 1) <= maxWidth)
        --e.post;
    return e;
}

} // namespace zbddc
