// Minato et al. 2011 §5, next-to-last paragraph: "reduce the number of types ... by executing some
// simpler types as if they were more complicated, using dummy variables of 1 or 0". Per level, the
// ops of a type that would fill a warp only partly run as a richer type of the same level when some
// of its leaves set to One (x ⊗ 1 = x) or Zero (x ⊕ 0 = x) reduce it exactly to theirs, and that
// saves warps. Both identities hold in every semiring, so the value is unchanged.
#include "compiler/passes/passes.h"
#include "ir/schedule_edit.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace zbddc {

namespace {

enum class Leaf : uint8_t { Keep, One, Zero };

// The template `rich` with leaves replaced as `how` says, simplified by x⊗1 = x and x⊕0 = x;
// nothing when a constant survives (it would not match a template without constants).
std::optional<std::vector<uint32_t>> simplify(const std::vector<uint32_t> &rich,
                                              const std::vector<Leaf> &how) {
    struct Value {
        int constant; // -1: code, 0: Zero, 1: One
        std::vector<uint32_t> code;
    };
    std::vector<Value> stack;
    size_t leaf = 0;
    for (uint32_t step : rich) {
        if (step <= static_cast<uint32_t>(TemplateStep::LoadX)) {
            const Leaf h = how[leaf++];
            stack.push_back(h == Leaf::Keep ? Value{-1, {step}}
                                            : Value{h == Leaf::One ? 1 : 0, {}});
            continue;
        }
        Value q = std::move(stack.back());
        stack.pop_back();
        Value &p = stack.back();
        const int unit = step == static_cast<uint32_t>(TemplateStep::Times) ? 1 : 0;
        if (q.constant == unit)
            continue;
        if (p.constant == unit) {
            p = std::move(q);
            continue;
        }
        if (p.constant >= 0 || q.constant >= 0)
            return std::nullopt;
        p.code.insert(p.code.end(), q.code.begin(), q.code.end());
        p.code.push_back(step);
    }
    if (stack.back().constant >= 0)
        return std::nullopt;
    return stack.back().code;
}

// How `simple` runs as `rich`: one Leaf per leaf of rich, or nothing.
std::optional<std::vector<Leaf>> embedding(const std::vector<uint32_t> &rich,
                                           const std::vector<uint32_t> &simple) {
    const auto leaves = [](const std::vector<uint32_t> &code) {
        return std::count_if(code.begin(), code.end(), [](uint32_t s) { return s <= 1; });
    };
    const size_t n = leaves(rich), keep = leaves(simple);
    if (n <= keep || n > 10)
        return std::nullopt;
    std::vector<Leaf> how(n, Leaf::Keep);
    size_t combos = 1;
    for (size_t i = 0; i < n; ++i)
        combos *= 3;
    for (size_t k = 0; k < combos; ++k) {
        size_t v = k, kept = 0;
        for (size_t i = 0; i < n; ++i, v /= 3) {
            how[i] = static_cast<Leaf>(v % 3);
            kept += how[i] == Leaf::Keep;
        }
        if (kept != keep)
            continue;
        if (auto code = simplify(rich, how); code && *code == simple)
            return how;
    }
    return std::nullopt;
}

} // namespace

void unifyTypes(Schedule &s, const PipelineOptions &o, PassStats &st) {
    const uint32_t types = s.numTypes(), warp = o.device.warp;
    std::vector<std::vector<std::optional<std::vector<Leaf>>>> embed(
        types, std::vector<std::optional<std::vector<Leaf>>>(types));
    for (uint32_t r = 0; r < types; ++r)
        for (uint32_t t = 0; t < types; ++t)
            if (r != t)
                embed[r][t] = embedding(templateCode(s, r), templateCode(s, t));
    const auto warps = [&](uint32_t n) { return (n + warp - 1) / warp; };

    std::vector<uint32_t> operands, begin{0};
    uint32_t converted = 0, extraReads = 0, groupsBefore = 0, groupsAfter = 0, warpsBefore = 0,
             warpsAfter = 0;
    for (uint32_t l = 0; l < s.numLevels(); ++l) {
        std::vector<uint32_t> count(types, 0), runAs(types);
        for (uint32_t i = s.levelOpBegin[l]; i < s.levelOpBegin[l + 1]; ++i)
            ++count[s.opType[i]];
        for (uint32_t t = 0; t < types; ++t) {
            runAs[t] = t;
            groupsBefore += count[t] > 0;
            warpsBefore += warps(count[t]);
        }
        // Smallest groups first: each moves into the richer type where it saves the most warps.
        std::vector<uint32_t> bySize(types);
        for (uint32_t t = 0; t < types; ++t)
            bySize[t] = t;
        std::sort(bySize.begin(), bySize.end(),
                  [&](uint32_t p, uint32_t q) { return count[p] < count[q]; });
        for (uint32_t t : bySize) {
            if (count[t] == 0)
                continue;
            uint32_t best = t, bestGain = 0;
            for (uint32_t r = 0; r < types; ++r) {
                if (r == t || count[r] == 0 || runAs[r] != r)
                    continue;
                bool all = true; // t and every type already folded into t must embed in r
                for (uint32_t m = 0; m < types; ++m)
                    all &= runAs[m] != t || (m != r && embed[r][m].has_value());
                if (!all)
                    continue;
                const uint32_t gain =
                    warps(count[t]) + warps(count[r]) - warps(count[t] + count[r]);
                if (gain > bestGain) {
                    best = r;
                    bestGain = gain;
                }
            }
            if (best == t)
                continue;
            count[best] += count[t];
            count[t] = 0;
            for (uint32_t &r : runAs) // ops already moved into t move on with it
                if (r == t)
                    r = best;
        }
        for (uint32_t t = 0; t < types; ++t) {
            groupsAfter += count[t] > 0;
            warpsAfter += warps(count[t]);
        }
        for (uint32_t i = s.levelOpBegin[l]; i < s.levelOpBegin[l + 1]; ++i) {
            const uint32_t t = s.opType[i], r = runAs[t];
            uint32_t k = s.opOperandBegin[i];
            if (r == t) {
                operands.insert(operands.end(), s.operands.begin() + k,
                                s.operands.begin() + s.opOperandBegin[i + 1]);
            } else {
                // Every type moved into r embeds in it directly (checked when it moved).
                std::vector<uint32_t> ops;
                for (Leaf h : *embed[r][t])
                    ops.push_back(h == Leaf::Keep  ? s.operands[k++]
                                  : h == Leaf::One ? kSlotOne
                                                   : kSlotZero);
                extraReads += static_cast<uint32_t>(ops.size()) -
                              (s.opOperandBegin[i + 1] - s.opOperandBegin[i]);
                operands.insert(operands.end(), ops.begin(), ops.end());
                s.opType[i] = r;
                ++converted;
            }
            begin.push_back(static_cast<uint32_t>(operands.size()));
        }
    }
    s.operands = std::move(operands);
    s.opOperandBegin = std::move(begin);
    std::vector<uint32_t> phases = s.levelPhase;
    resetGroupsAndBlocks(s);
    s.levelPhase = phases;
    st.add("ops run as richer types", converted);
    st.add("dummy operand reads", extraReads);
    st.add("groups before", groupsBefore);
    st.add("groups after", groupsAfter);
    st.add("warps before", warpsBefore);
    st.add("warps after", warpsAfter);
}

} // namespace zbddc
