#include "backends/cpu/dfs_order.h"

#include <algorithm>

namespace zbddc {

namespace {
bool isOp(OpKind k) { return k == OpKind::Plus || k == OpKind::Times || k == OpKind::MulAdd; }
} // namespace

std::vector<uint32_t> parentCounts(const Circuit &c) {
    std::vector<uint32_t> parents(c.numNodes(), 0);
    for (NodeId id = 0; id < c.numNodes(); ++id) {
        const int n = operandCount(c.kind[id]);
        const uint32_t operands[3] = {c.a[id], c.b[id], c.c[id]};
        for (int k = 0; k < n; ++k)
            ++parents[operands[k]];
    }
    return parents;
}

DfsOrder dfsOrder(const Circuit &c) {
    const std::vector<uint32_t> parents = parentCounts(c);
    enum : uint8_t { Unseen, Open, Done };
    std::vector<uint8_t> state(c.numNodes(), Unseen);
    DfsOrder result;
    result.order.reserve(c.numNodes());

    // Explicit stack (circuits are 10^7 deep chains): an entry with `close` set emits its node,
    // its children having been emitted first.
    struct Entry {
        NodeId id;
        bool close;
    };
    std::vector<Entry> stack;
    for (size_t o = c.numOutputs(); o-- > 0;)
        stack.push_back({c.outputs[o], false});
    while (!stack.empty()) {
        const Entry e = stack.back();
        stack.pop_back();
        if (e.close) {
            state[e.id] = Done;
            result.order.push_back(e.id);
            continue;
        }
        if (state[e.id] != Unseen)
            continue; // Done; Open is impossible in a DAG (it would be a cycle)
        state[e.id] = Open;
        stack.push_back({e.id, true});
        const int n = operandCount(c.kind[e.id]);
        NodeId kids[3] = {c.a[e.id], c.b[e.id], c.c[e.id]};
        // Minato et al. 2011 §3: the child with the most parents first; ties keep operand order.
        std::stable_sort(kids, kids + n,
                         [&](NodeId x, NodeId y) { return parents[x] > parents[y]; });
        for (int k = n; k-- > 0;)
            if (state[kids[k]] == Unseen)
                stack.push_back({kids[k], false});
    }
    result.reachable = result.order.size();
    for (NodeId id = 0; id < c.numNodes(); ++id)
        if (state[id] == Unseen)
            result.order.push_back(id);

    // A value stays in a register when its only reader is the next op of the order.
    std::vector<uint8_t> isOutput(c.numNodes(), 0);
    for (NodeId o : c.outputs)
        isOutput[o] = 1;
    NodeId previousOp = kNone;
    std::vector<uint8_t> consumedNext(c.numNodes(), 0);
    for (size_t i = 0; i < result.reachable; ++i) {
        const NodeId id = result.order[i];
        if (!isOp(c.kind[id]))
            continue;
        ++result.ops;
        if (previousOp != kNone) {
            const uint32_t operands[3] = {c.a[id], c.b[id], c.c[id]};
            for (int k = 0; k < operandCount(c.kind[id]); ++k)
                if (operands[k] == previousOp)
                    consumedNext[previousOp] = 1;
        }
        previousOp = id;
    }
    for (size_t i = 0; i < result.reachable; ++i) {
        const NodeId id = result.order[i];
        if (isOp(c.kind[id]) && (isOutput[id] || parents[id] != 1 || !consumedNext[id]))
            ++result.stored;
    }
    return result;
}

} // namespace zbddc
