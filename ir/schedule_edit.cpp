#include "ir/schedule_edit.h"

#include <algorithm>
#include <string>

namespace zbddc {

namespace {

constexpr uint32_t F = static_cast<uint32_t>(TemplateStep::LoadF);
constexpr uint32_t X = static_cast<uint32_t>(TemplateStep::LoadX);
constexpr uint32_t Mul = static_cast<uint32_t>(TemplateStep::Times);
constexpr uint32_t Add = static_cast<uint32_t>(TemplateStep::Plus);

// Minato et al. 2011 §2 typeA/typeB and §5 type2, type4–type6 (type1 = typeB, type3 = typeA).
struct NamedTemplate {
    const char *name;
    std::vector<uint32_t> code;
};
const std::vector<NamedTemplate> &seedTemplates() {
    static const std::vector<NamedTemplate> t = {
        {"typeB", {F, X, Mul}},
        {"typeA", {F, X, Mul, F, Add}},
        {"type2", {F, X, Mul, X, Mul}},
        {"type4", {F, X, Mul, X, Mul, F, Add}},
        {"type5", {F, X, Mul, F, X, Mul, Add}},
        {"type6", {F, X, Mul, X, Mul, F, X, Mul, Add}},
        {"plus", {F, F, Add}},
        {"times", {F, F, Mul}},
        {"muladd", {F, F, Mul, F, Add}},
    };
    return t;
}

} // namespace

uint32_t internType(Schedule &s, std::span<const uint32_t> code) {
    for (uint32_t t = 0; t < s.numTypes(); ++t)
        if (std::ranges::equal(code, s.typeTemplate(t)))
            return t;
    return appendType(s, code);
}

uint32_t appendType(Schedule &s, std::span<const uint32_t> code) {
    std::string name = "t" + std::to_string(s.numTypes());
    for (const NamedTemplate &n : seedTemplates())
        if (std::equal(code.begin(), code.end(), n.code.begin(), n.code.end()))
            name = n.name;
    s.typeName.push_back(name);
    s.typeCode.insert(s.typeCode.end(), code.begin(), code.end());
    s.typeCodeBegin.push_back(static_cast<uint32_t>(s.typeCode.size()));
    return s.numTypes() - 1;
}

std::vector<uint32_t> templateCode(const Schedule &s, uint32_t t) {
    const std::span<const uint32_t> code = s.typeTemplate(t);
    return {code.begin(), code.end()};
}

Schedule withoutOps(const Schedule &s) {
    Schedule out;
    static_cast<SlotLayout &>(out) = s;
    return out;
}

Schedule lowerToSchedule(const Circuit &c) {
    Schedule s;
    s.semiring = c.semiring;
    s.constants = c.constants;
    s.numInputs = static_cast<uint32_t>(c.numInputs());
    const uint32_t base = s.computedBase();
    std::vector<uint32_t> slot(c.numNodes(), kNone);
    std::vector<uint32_t> code, ops;
    for (NodeId id = 0; id < c.numNodes(); ++id) {
        const OpKind k = c.kind[id];
        switch (k) {
        case OpKind::Input:
            slot[id] = s.inputBase() + c.a[id];
            continue;
        case OpKind::Zero:
            slot[id] = kSlotZero;
            continue;
        case OpKind::One:
            slot[id] = kSlotOne;
            continue;
        case OpKind::Const:
            slot[id] = kSlotConstBase + c.a[id];
            continue;
        default:
            break;
        }
        auto isX = [&](NodeId n) { return c.kind[n] == OpKind::Input; };
        // A product or sum of two operands, F before X (both ops commute).
        auto pair = [&](NodeId p, NodeId q, uint32_t op) {
            if (isX(p) && !isX(q))
                std::swap(p, q);
            code.insert(code.end(), {isX(p) ? X : F, isX(q) ? X : F, op});
            ops.insert(ops.end(), {slot[p], slot[q]});
        };
        code.clear();
        ops.clear();
        if (k == OpKind::Plus)
            pair(c.a[id], c.b[id], Add);
        else if (k == OpKind::Times)
            pair(c.a[id], c.b[id], Mul);
        else { // MulAdd: (a ⊗ b) ⊕ c
            pair(c.a[id], c.b[id], Mul);
            code.insert(code.end(), {isX(c.c[id]) ? X : F, Add});
            ops.push_back(slot[c.c[id]]);
        }
        s.opType.push_back(internType(s, code));
        slot[id] = base + s.numOps() - 1;
        s.opOut.push_back(slot[id]);
        s.operands.insert(s.operands.end(), ops.begin(), ops.end());
        s.opOperandBegin.push_back(static_cast<uint32_t>(s.operands.size()));
        s.levelOpBegin.push_back(s.numOps());
        s.levelPhase.push_back(static_cast<uint32_t>(Phase::Host));
        s.levelThreads.push_back(0);
    }
    s.numSlots = base + s.numOps();
    for (size_t o = 0; o < c.numOutputs(); ++o) {
        s.outputs.push_back(slot[c.outputs[o]]);
        s.outputNames.push_back(o < c.outputNames.size() ? c.outputNames[o] : std::string());
    }
    resetGroupsAndBlocks(s);
    return s;
}

std::vector<uint32_t> levelOfOps(const Schedule &s) {
    std::vector<uint32_t> level(s.numOps());
    for (uint32_t l = 0; l < s.numLevels(); ++l)
        std::fill(level.begin() + s.levelOpBegin[l], level.begin() + s.levelOpBegin[l + 1], l);
    return level;
}

std::vector<uint32_t> producerOfSlots(const Schedule &s) {
    std::vector<uint32_t> producer(s.numSlots, kNone);
    for (uint32_t i = 0; i < s.numOps(); ++i)
        producer[s.opOut[i]] = i;
    return producer;
}

std::vector<uint32_t> readerCounts(const Schedule &s) {
    std::vector<uint32_t> readers(s.numSlots, 0);
    for (uint32_t slot : s.operands)
        ++readers[slot];
    for (uint32_t slot : s.outputs)
        ++readers[slot];
    return readers;
}

void rebuildOps(Schedule &s, const std::vector<uint32_t> &order,
                const std::vector<uint32_t> &newLevel, uint32_t numLevels) {
    std::vector<uint32_t> type, out, begin{0}, operands;
    type.reserve(order.size());
    out.reserve(order.size());
    begin.reserve(order.size() + 1);
    operands.reserve(s.operands.size());
    std::vector<uint32_t> levelBegin(numLevels + 1, 0);
    for (size_t k = 0; k < order.size(); ++k) {
        const uint32_t i = order[k];
        type.push_back(s.opType[i]);
        out.push_back(s.opOut[i]);
        operands.insert(operands.end(), s.operands.begin() + s.opOperandBegin[i],
                        s.operands.begin() + s.opOperandBegin[i + 1]);
        begin.push_back(static_cast<uint32_t>(operands.size()));
        ++levelBegin[newLevel[k] + 1];
    }
    for (uint32_t l = 0; l < numLevels; ++l)
        levelBegin[l + 1] += levelBegin[l];
    s.opType = std::move(type);
    s.opOut = std::move(out);
    s.opOperandBegin = std::move(begin);
    s.operands = std::move(operands);
    s.levelOpBegin = std::move(levelBegin);
    s.levelPhase.assign(numLevels, static_cast<uint32_t>(Phase::Host));
    s.levelThreads.assign(numLevels, 0);
    resetGroupsAndBlocks(s);
}

void resetGroupsAndBlocks(Schedule &s) {
    s.levelGroupBegin = {0};
    s.groupOpBegin = {0};
    s.groupType.clear();
    for (uint32_t l = 0; l < s.numLevels(); ++l) {
        for (uint32_t i = s.levelOpBegin[l]; i < s.levelOpBegin[l + 1]; ++i) {
            if (i == s.levelOpBegin[l] || s.opType[i] != s.opType[i - 1]) {
                if (i != s.levelOpBegin[l])
                    s.groupOpBegin.push_back(i);
                s.groupType.push_back(s.opType[i]);
            }
        }
        if (s.levelOpBegin[l] != s.levelOpBegin[l + 1])
            s.groupOpBegin.push_back(s.levelOpBegin[l + 1]);
        s.levelGroupBegin.push_back(s.numGroups());
    }
    s.levelBlockBegin = s.levelGroupBegin;
    s.blockOpBegin = s.groupOpBegin;
    s.blockLoadBegin.assign(s.blockOpBegin.size(), 0);
    s.blockLoads.clear();
}

} // namespace zbddc
