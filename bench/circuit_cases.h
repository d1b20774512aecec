// A network's evidence cases in its MLF circuit's variable order (matched by name): the cases
// bench/jt_batch and the peers sample on the network, asked of the circuit; and that workload
// sampled and loaded in one call.
#pragma once

#include "compiler/frontends/bn/bayes_net.h"
#include "ir/circuit.h"
#include "runtime/evidence.h"
#include "runtime/sample_evidence.h"
#include "pipeline/load_model.h"

#include <cstdio>
#include <optional>
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

// Fast-BNI's workload (Jiang et al. 2023) on a network's MLF circuit: the network at `path`, its
// circuit, and `count` forward-sampled cases (20% observed, seed 1) in the network's variable
// order and in the circuit's; nullopt after saying why on stderr.
struct SampledNetwork {
    BayesNet net;
    Circuit circuit;
    std::vector<Evidence> cases, circuitCases;
};

inline std::optional<SampledNetwork> sampleNetwork(const std::string &path, size_t count) {
    auto net = readNetworkFile(path);
    auto circuit = loadCircuit(path);
    if (!net || !circuit) {
        std::fprintf(stderr, "%s: %s\n", path.c_str(),
                     (!net ? net.error() : circuit.error()).str().c_str());
        return std::nullopt;
    }
    SampledNetwork s{std::move(*net), std::move(*circuit), {}, {}};
    s.cases = sampleEvidence(s.net, count, 0.2, 1);
    s.circuitCases = casesForCircuit(s.cases, s.net, s.circuit);
    return s;
}

} // namespace zbddc::bench
