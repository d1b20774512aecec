#include "backends/cuda/device_plan.h"

#include <algorithm>

namespace zbddc::cuda {

namespace {

bool isOp(OpKind k) { return k == OpKind::Plus || k == OpKind::Times || k == OpKind::MulAdd; }

GroupKind groupOf(OpKind k) {
    return k == OpKind::Plus ? GroupKind::Plus : k == OpKind::Times ? GroupKind::Times
                                                                   : GroupKind::MulAdd;
}

} // namespace

std::vector<uint32_t> asapLevels(const Circuit &c) {
    std::vector<uint32_t> level(c.numNodes(), 0);
    for (NodeId id = 0; id < c.numNodes(); ++id) {
        if (!isOp(c.kind[id]))
            continue;
        uint32_t l = std::max(level[c.a[id]], level[c.b[id]]);
        if (c.kind[id] == OpKind::MulAdd)
            l = std::max(l, level[c.c[id]]);
        level[id] = l + 1;
    }
    return level;
}

DevicePlan buildDevicePlan(const Circuit &c, const std::vector<uint32_t> &level, bool reuseSlots) {
    DevicePlan p;
    p.reusesSlots = reuseSlots;
    p.numInputs = static_cast<uint32_t>(c.numInputs());
    const SemiringOps ring{c.semiring};
    p.nodeSlot.assign(c.numNodes(), 0);

    // Leaves: inputs share the x slot of their index; each constant node gets a slot.
    for (NodeId id = 0; id < c.numNodes(); ++id) {
        switch (c.kind[id]) {
        case OpKind::Input: p.nodeSlot[id] = c.a[id]; break;
        case OpKind::Zero:
        case OpKind::One:
        case OpKind::Const:
            p.nodeSlot[id] = p.numInputs + static_cast<uint32_t>(p.constantValues.size());
            p.constantValues.push_back(c.kind[id] == OpKind::Zero  ? ring.zero()
                                       : c.kind[id] == OpKind::One ? ring.one()
                                                                   : c.constants[c.a[id]]);
            break;
        default: break;
        }
    }
    p.numConstants = static_cast<uint32_t>(p.constantValues.size());

    // Order ops by (level, group kind, id): a counting sort keeps it linear for 10^8 nodes.
    uint32_t maxLevel = 0;
    for (NodeId id = 0; id < c.numNodes(); ++id)
        if (isOp(c.kind[id]))
            maxLevel = std::max(maxLevel, level[id]);
    p.numLevels = maxLevel; // op levels are 1..maxLevel; level L is stored at index L-1
    p.groupStart.assign(size_t{p.numLevels} * kGroupKinds + 1, 0);
    auto bucket = [&](NodeId id) {
        return size_t{level[id] - 1} * kGroupKinds + static_cast<size_t>(groupOf(c.kind[id]));
    };
    for (NodeId id = 0; id < c.numNodes(); ++id)
        if (isOp(c.kind[id]))
            ++p.groupStart[bucket(id) + 1];
    for (size_t i = 1; i < p.groupStart.size(); ++i)
        p.groupStart[i] += p.groupStart[i - 1];
    const uint32_t numOps = p.groupStart.back();
    p.opNode.assign(numOps, 0);
    {
        std::vector<uint32_t> next(p.groupStart.begin(), p.groupStart.end() - 1);
        for (NodeId id = 0; id < c.numNodes(); ++id)
            if (isOp(c.kind[id]))
                p.opNode[next[bucket(id)]++] = id;
    }
    p.levelWidth.resize(p.numLevels);
    for (uint32_t L = 0; L < p.numLevels; ++L)
        p.levelWidth[L] = p.groupStart[(L + 1) * kGroupKinds] - p.groupStart[L * kGroupKinds];

    // Result slots. Without reuse: contiguous in op order, so each level's writes coalesce.
    const uint32_t firstOpSlot = p.numInputs + p.numConstants;
    p.opDst.resize(numOps);
    if (!reuseSlots) {
        for (uint32_t k = 0; k < numOps; ++k)
            p.nodeSlot[p.opNode[k]] = p.opDst[k] = firstOpSlot + k;
        p.numSlots = firstOpSlot + numOps;
    } else {
        // lastRead[node] = the highest level reading it; outputs stay live to the end.
        std::vector<uint32_t> lastRead(c.numNodes(), 0);
        for (uint32_t k = 0; k < numOps; ++k) {
            const NodeId id = p.opNode[k];
            for (uint32_t operand : {c.a[id], c.b[id], c.c[id]})
                if (operand != kNone)
                    lastRead[operand] = std::max(lastRead[operand], level[id]);
        }
        for (NodeId out : c.outputs)
            lastRead[out] = kNone;
        // Slots whose value's last reader is at level L become free for level L+1.
        std::vector<std::vector<uint32_t>> freedAfter(p.numLevels + 2);
        std::vector<uint32_t> freeSlots;
        uint32_t nextSlot = firstOpSlot;
        for (uint32_t L = 1; L <= p.numLevels; ++L) {
            for (uint32_t s : freedAfter[L - 1])
                freeSlots.push_back(s);
            freedAfter[L - 1].clear();
            for (uint32_t k = p.groupStart[(L - 1) * kGroupKinds];
                 k < p.groupStart[L * kGroupKinds]; ++k) {
                uint32_t s;
                if (freeSlots.empty()) {
                    s = nextSlot++;
                } else {
                    s = freeSlots.back();
                    freeSlots.pop_back();
                }
                const NodeId id = p.opNode[k];
                p.opDst[k] = p.nodeSlot[id] = s;
                // A node nobody reads is dead at once (its slot is free after its own level).
                const uint32_t last = lastRead[id] == 0 ? L : lastRead[id];
                if (last != kNone)
                    freedAfter[last].push_back(s);
            }
        }
        p.numSlots = nextSlot;
    }

    p.opA.resize(numOps);
    p.opB.resize(numOps);
    p.opC.assign(numOps, 0);
    for (uint32_t k = 0; k < numOps; ++k) {
        const NodeId id = p.opNode[k];
        p.opA[k] = p.nodeSlot[c.a[id]];
        p.opB[k] = p.nodeSlot[c.b[id]];
        if (c.kind[id] == OpKind::MulAdd)
            p.opC[k] = p.nodeSlot[c.c[id]];
    }
    if (reuseSlots)
        return p;

    // Backward gather lists. Item of a node: its op index, or numOps + input index for x slots.
    const uint32_t numItems = numOps + p.numInputs;
    std::vector<uint32_t> itemOfSlot(p.numSlots, kNone);
    for (uint32_t i = 0; i < p.numInputs; ++i)
        itemOfSlot[i] = numOps + i;
    for (uint32_t k = 0; k < numOps; ++k)
        itemOfSlot[p.opDst[k]] = k;
    struct Edge {
        uint32_t item, parent, mul;
    };
    std::vector<Edge> edges;
    // Each operand position is its own edge (x·x reads x twice, and the reference counts both).
    for (uint32_t k = 0; k < numOps; ++k) {
        const NodeId id = p.opNode[k];
        const uint32_t sa = p.opA[k], sb = p.opB[k], self = p.opDst[k];
        auto add = [&](uint32_t slot, uint32_t mul) {
            if (itemOfSlot[slot] != kNone)
                edges.push_back({itemOfSlot[slot], self, mul});
        };
        if (c.kind[id] == OpKind::Plus) {
            add(sa, DevicePlan::kNoMul);
            add(sb, DevicePlan::kNoMul);
        } else {
            add(sa, sb); // ∂(a⊗b)/∂a = b
            add(sb, sa);
            if (c.kind[id] == OpKind::MulAdd)
                add(p.opC[k], DevicePlan::kNoMul);
        }
    }
    p.edgeStart.assign(numItems + 1, 0);
    for (const Edge &e : edges)
        ++p.edgeStart[e.item + 1];
    for (size_t i = 1; i < p.edgeStart.size(); ++i)
        p.edgeStart[i] += p.edgeStart[i - 1];
    p.edgeParent.resize(edges.size());
    p.edgeMul.resize(edges.size());
    std::vector<uint32_t> next(p.edgeStart.begin(), p.edgeStart.end() - 1);
    for (const Edge &e : edges) { // edges were made in op order: each list is deterministic
        const uint32_t at = next[e.item]++;
        p.edgeParent[at] = e.parent;
        p.edgeMul[at] = e.mul;
    }
    return p;
}

} // namespace zbddc::cuda
