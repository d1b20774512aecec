#include "backends/cpu/dfs_order.h"

#include <algorithm>

namespace zbddc {

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
        NodeOperands kids = operandsOf(c, e.id);
        // Minato et al. 2011 §3: the child with the most parents first; ties keep operand order.
        std::stable_sort(kids.ids, kids.ids + kids.count,
                         [&](NodeId x, NodeId y) { return parents[x] > parents[y]; });
        for (int k = kids.count; k-- > 0;)
            if (state[kids.ids[k]] == Unseen)
                stack.push_back({kids.ids[k], false});
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
            for (NodeId p : operandsOf(c, id))
                if (p == previousOp)
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
