#include "compiler/frontends/zdd/zdd_lower.h"

namespace zbddc {

Circuit lowerZdd(const ZddModel &m) {
    Circuit c;
    c.variables = m.variables;
    c.inputs = m.vars;
    c.reserve(m.nodes.size() + m.vars.size() + 2);

    // Node ids of the circuit for each ZBDD id; terminals and inputs are made on first use.
    std::vector<NodeId> f(m.nodes.size() + 2, kNone);
    std::vector<NodeId> input(m.vars.size(), kNone);
    auto valueOf = [&](uint32_t id) {
        if (f[id] == kNone)
            f[id] = id == kZddEmpty ? c.addZero() : c.addOne(); // only terminals are lazy
        return f[id];
    };
    auto inputOf = [&](uint32_t var) {
        if (input[var] == kNone)
            input[var] = c.addInput(var);
        return input[var];
    };
    for (size_t i = 0; i < m.nodes.size(); ++i) {
        const ZddNode &n = m.nodes[i];
        const NodeId hi = valueOf(n.hi);
        const NodeId x = inputOf(n.var);
        f[ZddModel::idOf(i)] = n.lo == kZddEmpty ? c.addTimes(hi, x) : c.addMulAdd(hi, x, valueOf(n.lo));
    }
    for (size_t r = 0; r < m.roots.size(); ++r)
        c.addOutput(valueOf(m.roots[r]), m.rootNames[r]);
    return c;
}

} // namespace zbddc
