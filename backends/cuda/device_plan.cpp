#include "backends/cuda/device_plan.h"

#include <algorithm>

namespace zbddc::cuda {

namespace {

constexpr uint32_t kF = static_cast<uint32_t>(TemplateStep::LoadF);
constexpr uint32_t kTimes = static_cast<uint32_t>(TemplateStep::Times);
constexpr uint32_t kPlus = static_cast<uint32_t>(TemplateStep::Plus);

uint32_t typeOf(OpKind k) { return k == OpKind::Plus ? 0 : k == OpKind::Times ? 1 : 2; }

} // namespace

uint32_t DevicePlan::arity(uint32_t t) const { return leafCount(typeCode[t]); }

DevicePlan buildDevicePlan(const Circuit &c, const std::vector<uint32_t> &level, bool reuseSlots) {
    DevicePlan p;
    p.typeCode = {{kF, kF, kPlus}, {kF, kF, kTimes}, {kF, kF, kTimes, kF, kPlus}};
    p.typeName = {"plus", "times", "muladd"};
    p.reusesSlots = reuseSlots;
    p.inputBase = 0;
    p.numInputs = static_cast<uint32_t>(c.numInputs());
    p.constantBase = p.numInputs;
    const SemiringOps ring{c.semiring};
    p.nodeSlot.assign(c.numNodes(), 0);

    // Leaves: inputs share the x slot of their index; each constant node gets a slot.
    for (NodeId id = 0; id < c.numNodes(); ++id) {
        switch (c.kind[id]) {
        case OpKind::Input: p.nodeSlot[id] = p.inputBase + c.a[id]; break;
        case OpKind::Zero:
        case OpKind::One:
        case OpKind::Const:
            p.nodeSlot[id] = p.constantBase + static_cast<uint32_t>(p.constantValues.size());
            p.constantValues.push_back(c.kind[id] == OpKind::Zero  ? ring.zero()
                                       : c.kind[id] == OpKind::One ? ring.one()
                                                                   : c.constants[c.a[id]]);
            break;
        default: break;
        }
    }
    p.firstComputedSlot = p.constantBase + static_cast<uint32_t>(p.constantValues.size());

    // Order ops by (level, type, id): a counting sort keeps it linear for 10^8 nodes.
    uint32_t levels = 0;
    for (NodeId id = 0; id < c.numNodes(); ++id)
        if (isOp(c.kind[id]))
            levels = std::max(levels, level[id]);
    std::vector<uint32_t> start(size_t{levels} * 3 + 1, 0);
    auto bucket = [&](NodeId id) { return size_t{level[id] - 1} * 3 + typeOf(c.kind[id]); };
    for (NodeId id = 0; id < c.numNodes(); ++id)
        if (isOp(c.kind[id]))
            ++start[bucket(id) + 1];
    for (size_t i = 1; i < start.size(); ++i)
        start[i] += start[i - 1];
    const uint32_t numOps = start.back();
    std::vector<NodeId> opNode(numOps);
    {
        std::vector<uint32_t> next(start.begin(), start.end() - 1);
        for (NodeId id = 0; id < c.numNodes(); ++id)
            if (isOp(c.kind[id]))
                opNode[next[bucket(id)]++] = id;
    }
    for (uint32_t L = 0; L < levels; ++L) {
        for (uint32_t t = 0; t < 3; ++t)
            if (start[L * 3 + t + 1] > start[L * 3 + t]) {
                p.groupType.push_back(t);
                p.groupOpBegin.push_back(start[L * 3 + t + 1]);
            }
        p.levelGroupBegin.push_back(static_cast<uint32_t>(p.groupType.size()));
    }

    // Result slots. Without reuse: contiguous in op order, so each level's writes coalesce.
    p.opOut.resize(numOps);
    if (!reuseSlots) {
        for (uint32_t k = 0; k < numOps; ++k)
            p.nodeSlot[opNode[k]] = p.opOut[k] = p.firstComputedSlot + k;
        p.numSlots = p.firstComputedSlot + numOps;
    } else {
        // lastRead[node] = the highest level reading it; outputs stay live to the end.
        std::vector<uint32_t> lastRead(c.numNodes(), 0);
        for (NodeId id : opNode)
            for (NodeId operand : operandsOf(c, id))
                lastRead[operand] = std::max(lastRead[operand], level[id]);
        for (NodeId out : c.outputs)
            lastRead[out] = kNone;
        // Slots whose value's last reader is at level L become free for level L+1.
        std::vector<std::vector<uint32_t>> freedAfter(levels + 2);
        std::vector<uint32_t> freeSlots;
        uint32_t nextSlot = p.firstComputedSlot;
        for (uint32_t L = 1; L <= levels; ++L) {
            freeSlots.insert(freeSlots.end(), freedAfter[L - 1].begin(), freedAfter[L - 1].end());
            for (uint32_t k = start[(L - 1) * 3]; k < start[L * 3]; ++k) {
                uint32_t s = nextSlot;
                if (freeSlots.empty()) {
                    ++nextSlot;
                } else {
                    s = freeSlots.back();
                    freeSlots.pop_back();
                }
                const NodeId id = opNode[k];
                p.opOut[k] = p.nodeSlot[id] = s;
                // A node nobody reads is dead at once (its slot is free after its own level).
                const uint32_t last = lastRead[id] == 0 ? L : lastRead[id];
                if (last != kNone)
                    freedAfter[last].push_back(s);
            }
        }
        p.numSlots = nextSlot;
    }

    p.opType.resize(numOps);
    for (uint32_t k = 0; k < numOps; ++k) {
        const NodeId id = opNode[k];
        p.opType[k] = typeOf(c.kind[id]);
        p.operands.push_back(p.nodeSlot[c.a[id]]);
        p.operands.push_back(p.nodeSlot[c.b[id]]);
        if (c.kind[id] == OpKind::MulAdd)
            p.operands.push_back(p.nodeSlot[c.c[id]]);
        p.opOperandBegin.push_back(static_cast<uint32_t>(p.operands.size()));
    }
    for (NodeId out : c.outputs)
        p.outputSlots.push_back(p.nodeSlot[out]);
    if (!reuseSlots)
        (void)addBackwardEdges(p); // every slot is written once here: cannot fail
    return p;
}

Result<DevicePlan> buildDevicePlan(const Schedule &s) {
    if (Status st = verify(s); !st)
        return st.error();
    DevicePlan p;
    for (uint32_t t = 0; t < s.numTypes(); ++t) {
        const std::span<const uint32_t> code = s.typeTemplate(t);
        p.typeCode.emplace_back(code.begin(), code.end());
        p.typeName.push_back(s.typeName[t]);
    }
    const SemiringOps ring{s.semiring};
    p.numSlots = s.numSlots;
    p.constantBase = 0;
    p.constantValues = {ring.zero(), ring.one()}; // kSlotZero, kSlotOne
    p.constantValues.insert(p.constantValues.end(), s.constants.begin(), s.constants.end());
    p.inputBase = s.inputBase();
    p.numInputs = s.numInputs;
    p.firstComputedSlot = s.computedBase();
    p.outputSlots = s.outputs;
    p.opType = s.opType;
    p.opOut = s.opOut;
    p.opOperandBegin = s.opOperandBegin;
    p.operands = s.operands;
    p.levelGroupBegin = s.levelGroupBegin;
    p.groupOpBegin = s.groupOpBegin;
    p.groupType = s.groupType;
    // Undo shared-memory preloads: a preloaded block's LoadX operands index its load list.
    for (uint32_t b = 0; b < s.numBlocks(); ++b) {
        if (!s.blockPreloads(b))
            continue;
        const uint32_t *loads = s.blockLoads.data() + s.blockLoadBegin[b];
        for (uint32_t i = s.blockOpBegin[b]; i < s.blockOpBegin[b + 1]; ++i)
            forEachLeaf(s, i, [&](TemplateStep step, uint32_t k) {
                if (step == TemplateStep::LoadX)
                    p.operands[k] = loads[s.operands[k]];
            });
    }
    std::vector<uint8_t> written(p.numSlots, 0);
    for (uint32_t slot : p.opOut)
        if (written[slot]++) {
            p.reusesSlots = true;
            break;
        }
    if (!p.reusesSlots)
        if (Status st = addBackwardEdges(p); !st)
            return st.error();
    return p;
}

Status addBackwardEdges(DevicePlan &p) {
    const uint32_t numOps = p.numOps(), numItems = numOps + p.numInputs;
    std::vector<uint32_t> itemOfSlot(p.numSlots, kNone);
    for (uint32_t i = 0; i < p.numInputs; ++i)
        itemOfSlot[p.inputBase + i] = numOps + i;
    for (uint32_t k = 0; k < numOps; ++k) {
        if (itemOfSlot[p.opOut[k]] != kNone)
            return error("slot " + std::to_string(p.opOut[k]) +
                         " is written twice: the backward pass needs every value kept");
        itemOfSlot[p.opOut[k]] = k;
    }
    // Each operand position is its own edge (x·x reads x twice, and the reference counts both).
    // Edges are listed in op order, so each item's list, and its ⊕ order, is deterministic.
    p.edgeStart.assign(numItems + 1, 0);
    for (uint32_t slot : p.operands)
        if (itemOfSlot[slot] != kNone)
            ++p.edgeStart[itemOfSlot[slot] + 1];
    for (size_t i = 1; i < p.edgeStart.size(); ++i)
        p.edgeStart[i] += p.edgeStart[i - 1];
    p.edgeOp.assign(p.edgeStart.back(), 0);
    p.edgePos.assign(p.edgeStart.back(), 0);
    std::vector<uint32_t> next(p.edgeStart.begin(), p.edgeStart.end() - 1);
    for (uint32_t k = 0; k < numOps; ++k)
        for (uint32_t j = p.opOperandBegin[k]; j < p.opOperandBegin[k + 1]; ++j)
            if (const uint32_t item = itemOfSlot[p.operands[j]]; item != kNone) {
                p.edgeOp[next[item]] = k;
                p.edgePos[next[item]++] = j - p.opOperandBegin[k];
            }
    return Ok{};
}

} // namespace zbddc::cuda
