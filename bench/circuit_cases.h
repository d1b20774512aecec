// A network's evidence cases in its MLF circuit's variable order (matched by name): the cases
// bench/jt_batch and the peers sample on the network, asked of the circuit.
#pragma once

#include "compiler/frontends/bn/bayes_net.h"
#include "ir/circuit.h"
#include "runtime/evidence.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace zbddc::bench {

inline std::vector<Evidence> casesForCircuit(const std::vector<Evidence> &cases,
                                             const BayesNet &net, const Circuit &circuit) {
    std::unordered_map<std::string, size_t> at;
    for (size_t v = 0; v < net.variables.size(); ++v)
        at[net.variables[v].name] = v;
    std::vector<Evidence> out;
    for (const Evidence &e : cases) {
        Evidence c = noEvidence(circuit.variables);
        for (size_t v = 0; v < circuit.variables.size(); ++v)
            if (auto it = at.find(circuit.variables[v].name); it != at.end())
                c.states[v] = e.states[it->second];
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace zbddc::bench
