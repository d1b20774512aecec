#include "ir/circuit_stats.h"
#include "ir/levels.h"

#include <algorithm>
#include <vector>

namespace zbddc {

CircuitStats circuitStats(const Circuit &c) {
    CircuitStats s;
    s.nodes = c.numNodes();
    s.inputs = c.numInputs();
    s.outputs = c.numOutputs();
    for (OpKind k : c.kind) {
        s.typeA += k == OpKind::MulAdd;
        s.typeB += k == OpKind::Times;
        s.plus += k == OpKind::Plus;
    }
    s.ops = s.typeA + s.typeB + s.plus;
    const std::vector<uint32_t> level = asapLevels(c);
    if (!level.empty())
        s.levels = *std::max_element(level.begin(), level.end());
    return s;
}

} // namespace zbddc
