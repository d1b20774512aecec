#include "backends/cuda/plan_traceback.h"
#include "ir/optimal_term.h"
#include "support/name_table.h"

#include <algorithm>

namespace zbddc::cuda {

namespace {

// An op's template as a tree over its operands: each node's value, so the walk can compare the
// two sides of a ⊕ that has no slot of its own.
struct TemplateNode {
    uint32_t step = 0;
    int leaf = -1, left = -1, right = -1;
    double value = 0;
};

std::vector<TemplateNode> evaluateTemplate(const std::vector<uint32_t> &code,
                                           std::span<const uint32_t> operands,
                                           std::span<const double> slotValue,
                                           const SemiringOps &ring) {
    std::vector<TemplateNode> nodes;
    std::vector<int> stack;
    int leaves = 0;
    for (uint32_t step : code) {
        TemplateNode n;
        n.step = step;
        if (isLoadStep(step)) {
            n.leaf = leaves++;
            n.value = slotValue[operands[n.leaf]];
        } else {
            n.right = stack.back();
            stack.pop_back();
            n.left = stack.back();
            stack.pop_back();
            const double p = nodes[n.left].value, q = nodes[n.right].value;
            n.value = step == static_cast<uint32_t>(TemplateStep::Times) ? ring.times(p, q)
                                                                         : ring.plus(p, q);
        }
        nodes.push_back(n);
        stack.push_back(static_cast<int>(nodes.size()) - 1);
    }
    return nodes;
}

} // namespace

Result<std::vector<uint32_t>> tracebackPlan(const DevicePlan &p, Semiring semiring, bool logSpace,
                                            std::span<const double> slotValue,
                                            uint32_t outputSlot) {
    if (semiring == Semiring::SumProduct || semiring == Semiring::MinSumInt64)
        return error("traceback applies to max/min semirings over doubles");
    if (p.reusesSlots || slotValue.size() != p.numSlots)
        return error("traceback needs every slot's value (a plan without slot reuse)");
    // In log space max-product is max-sum.
    const SemiringOps ring{logSpace && semiring == Semiring::MaxProduct ? Semiring::MaxSum
                                                                        : semiring};
    // Over the plan's slots, each visited once; a merged op's template is walked inside it.
    struct PlanWalk {
        const DevicePlan &p;
        std::span<const double> slotValue;
        const SemiringOps &ring;
        std::vector<uint32_t> producer;
        std::vector<uint8_t> seen;
        bool firstVisit(uint32_t slot) { return !seen[slot]++; }
        uint32_t input(uint32_t slot) const {
            return slot >= p.inputBase && slot < p.inputBase + p.numInputs ? slot - p.inputBase
                                                                           : kNone;
        }
        bool isOp(uint32_t slot) const { return producer[slot] != kNone; }
        void pushChosen(uint32_t slot, std::vector<uint32_t> &pending) const {
            const uint32_t k = producer[slot];
            const std::span<const uint32_t> operands(p.slotOperands.data() + p.opOperandBegin[k],
                                                     p.opOperandBegin[k + 1] - p.opOperandBegin[k]);
            const std::vector<TemplateNode> tree =
                evaluateTemplate(p.typeCode[p.opType[k]], operands, slotValue, ring);
            std::vector<int> walk{static_cast<int>(tree.size()) - 1};
            while (!walk.empty()) {
                const TemplateNode &n = tree[walk.back()];
                walk.pop_back();
                if (n.leaf >= 0) {
                    pending.push_back(operands[n.leaf]);
                } else if (n.step == static_cast<uint32_t>(TemplateStep::Times)) {
                    walk.push_back(n.right);
                    walk.push_back(n.left);
                } else { // the side that gives the ⊕ its value; the first on a tie
                    walk.push_back(ring.plus(tree[n.left].value, tree[n.right].value) ==
                                           tree[n.left].value
                                       ? n.left
                                       : n.right);
                }
            }
        }
    } walk{p, slotValue, ring, std::vector<uint32_t>(p.numSlots, kNone),
           std::vector<uint8_t>(p.numSlots, 0)};
    for (uint32_t k = 0; k < p.numOps(); ++k)
        walk.producer[p.opOut[k]] = k;
    std::vector<uint32_t> inputs, pending;
    walkOptimalTerm(walk, outputSlot, p.numOps(), pending, [&](uint32_t input) {
        inputs.push_back(input);
        return true;
    });
    std::sort(inputs.begin(), inputs.end());
    return inputs;
}

const char *traceStatusText(uint32_t status) {
    constexpr Named<TraceStatus> kTexts[] = {
        {TraceStatus::Traced, "traced"},
        {TraceStatus::TooLong, "the walk repeats shared ops"},
        {TraceStatus::TooDeep, "too many ops pending on the walk"},
        {TraceStatus::Clash, "two states of one variable on the term"},
        {TraceStatus::TooWide, "a merged op's template is too long to walk"},
        {TraceStatus::TracedTied, "traced, a tie met"}};
    return nameIn(kTexts, static_cast<TraceStatus>(status), "unknown traceback status");
}

Result<TracebackArrays> tracebackArrays(const DevicePlan &p, std::span<const InputInfo> inputs) {
    if (p.reusesSlots)
        return error("traceback needs every slot's value (a plan without slot reuse)");
    if (inputs.size() != p.numInputs)
        return error("traceback: " + std::to_string(inputs.size()) + " inputs for a plan of " +
                     std::to_string(p.numInputs));
    TracebackArrays a;
    a.producer.assign(p.numSlots - p.firstComputedSlot, kNone);
    for (uint32_t k = 0; k < p.numOps(); ++k)
        a.producer[p.opOut[k] - p.firstComputedSlot] = k;
    a.codeBegin.push_back(0);
    for (const std::vector<uint32_t> &code : p.typeCode) {
        a.code.insert(a.code.end(), code.begin(), code.end());
        a.codeBegin.push_back(static_cast<uint32_t>(a.code.size()));
    }
    a.indicator = indicatorStates(inputs);
    a.maxSteps = std::max<uint32_t>(p.numOps(), 1);
    return a;
}

} // namespace zbddc::cuda
