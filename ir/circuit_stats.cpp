#include "ir/circuit_stats.h"

#include <algorithm>
#include <vector>

namespace zbddc {

CircuitStats circuitStats(const Circuit &c) {
    CircuitStats s;
    s.nodes = c.numNodes();
    s.inputs = c.numInputs();
    s.outputs = c.numOutputs();
    std::vector<uint32_t> level(c.numNodes(), 0);
    for (NodeId id = 0; id < c.numNodes(); ++id) {
        const OpKind k = c.kind[id];
        s.typeA += k == OpKind::MulAdd;
        s.typeB += k == OpKind::Times;
        s.plus += k == OpKind::Plus;
        const int n = operandCount(k);
        if (n == 0)
            continue;
        uint32_t deepest = std::max(level[c.a[id]], level[c.b[id]]);
        if (n == 3)
            deepest = std::max(deepest, level[c.c[id]]);
        level[id] = deepest + 1;
        s.levels = std::max<uint64_t>(s.levels, level[id]);
    }
    s.ops = s.typeA + s.typeB + s.plus;
    return s;
}

} // namespace zbddc
