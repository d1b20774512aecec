#include "runtime/marginals.h"

#include <cmath>

namespace zbddc {

void marginalsFromAdjoints(const ModelInterface &c, Numeric numeric,
                           std::span<const uint32_t> indicators, std::span<const double> adj,
                           double root, const Evidence &ev, TaskResult &r) {
    r.marginals.assignZeros(c.variables.size(),
                            [&](size_t v) { return c.variables[v].states.size(); });
    for (size_t j = 0; j < indicators.size(); ++j) {
        const InputInfo &in = c.inputs[indicators[j]];
        if (in.kind != InputKind::Indicator) // a batch's varying free inputs (caseFreeInputs)
            continue;
        const double a = adj[j];
        r.marginals[in.variable][in.state] += inLogSpace(numeric) ? std::exp(a - root) : a / root;
    }
    for (size_t v = 0; v < c.variables.size(); ++v)
        if (ev.states[v] != kNone)
            for (size_t s = 0; s < r.marginals[v].size(); ++s)
                r.marginals[v][s] = s == ev.states[v] ? 1.0 : 0.0;
}

} // namespace zbddc
