#include "compiler/loopy/factor_graph.h"

#include <cmath>

namespace zbddc {

bool FactorGraph::pairwise() const {
    for (const LoopyFactor &f : factors)
        if (f.scope.size() > 2)
            return false;
    return true;
}

Status finishFactorGraph(FactorGraph &g) {
    const size_t n = g.domainSizes.size();
    g.names.resize(n);
    for (size_t v = 0; v < n; ++v)
        if (g.names[v].empty())
            g.names[v] = std::to_string(v);
    g.factorEdgeStart.assign(1, 0);
    g.edgeFactor.clear();
    g.edgeVariable.clear();
    g.messageOffset.assign(1, 0);
    std::vector<uint32_t> seen(n, UINT32_MAX);
    for (uint32_t f = 0; f < g.factors.size(); ++f) {
        const LoopyFactor &factor = g.factors[f];
        uint64_t entries = 1;
        for (uint32_t v : factor.scope) {
            if (v >= n)
                return errorAt(g.file, 0,
                               "factor " + std::to_string(f) + " names variable " +
                                   std::to_string(v) + " of " + std::to_string(n));
            if (seen[v] == f)
                return errorAt(g.file, 0,
                               "factor " + std::to_string(f) + " holds variable " + g.names[v] +
                                   " twice");
            seen[v] = f;
            if (g.domainSizes[v] == 0)
                return errorAt(g.file, 0, "variable " + g.names[v] + " has no states");
            entries *= g.domainSizes[v];
            if (entries > kMaxLoopyFactorEntries)
                return errorAt(g.file, 0,
                               "factor " + std::to_string(f) + " has over " +
                                   std::to_string(kMaxLoopyFactorEntries) +
                                   " entries, too many for loopy BP");
            g.edgeFactor.push_back(f);
            g.edgeVariable.push_back(v);
            g.messageOffset.push_back(g.messageOffset.back() + g.domainSizes[v]);
        }
        if (factor.logValues.size() != entries)
            return errorAt(g.file, 0,
                           "factor " + std::to_string(f) + " has " +
                               std::to_string(factor.logValues.size()) + " entries, its scope " +
                               std::to_string(entries));
        g.factorEdgeStart.push_back(static_cast<uint32_t>(g.edgeFactor.size()));
    }
    g.stateOffset.assign(n + 1, 0);
    for (size_t v = 0; v < n; ++v)
        g.stateOffset[v + 1] = g.stateOffset[v] + g.domainSizes[v];
    g.variableEdgeStart.assign(n + 1, 0);
    for (uint32_t v : g.edgeVariable)
        ++g.variableEdgeStart[v + 1];
    for (size_t v = 0; v < n; ++v)
        g.variableEdgeStart[v + 1] += g.variableEdgeStart[v];
    g.variableEdges.assign(g.edgeVariable.size(), 0);
    std::vector<uint32_t> next(g.variableEdgeStart.begin(), g.variableEdgeStart.end() - 1);
    for (uint32_t e = 0; e < g.edgeVariable.size(); ++e)
        g.variableEdges[next[g.edgeVariable[e]]++] = e;
    return Ok{};
}

Result<FactorGraph> factorGraphOfNetwork(const BayesNet &net) {
    FactorGraph g;
    g.file = net.file;
    for (const BnVariable &v : net.variables) {
        g.names.push_back(v.name);
        g.domainSizes.push_back(static_cast<uint32_t>(v.states.size()));
    }
    // A CPT's layout (bayes_net.h) is a table over (parents..., X), X fastest.
    for (uint32_t v = 0; v < net.variables.size(); ++v) {
        LoopyFactor f;
        f.scope = net.variables[v].parents;
        f.scope.push_back(v);
        f.logValues.reserve(net.variables[v].cpt.size());
        for (double p : net.variables[v].cpt)
            f.logValues.push_back(std::log(p));
        g.factors.push_back(std::move(f));
    }
    if (auto s = finishFactorGraph(g); !s)
        return s.error();
    return g;
}

Result<FactorGraph> factorGraphOfCostNetwork(const CostNetwork &net, const std::string &file) {
    FactorGraph g;
    g.file = file;
    g.names = net.variableNames;
    g.domainSizes = net.domainSizes;
    for (const CostFunction &c : net.functions) {
        uint64_t entries = 0;
        if (!tableSize(net.domainSizes, c.scope, entries) || entries > kMaxLoopyFactorEntries)
            return errorAt(file, c.line,
                           "a cost function with over " + std::to_string(kMaxLoopyFactorEntries) +
                               " entries, too many for loopy BP");
        LoopyFactor f;
        f.scope = c.scope;
        f.logValues.resize(entries);
        for (uint64_t row = 0; row < entries; ++row) {
            const Cost cost = c.costAtRow(row);
            f.logValues[row] = net.feasible(cost) ? -net.costValue(cost) : -INFINITY;
        }
        g.factors.push_back(std::move(f));
    }
    if (auto s = finishFactorGraph(g); !s)
        return s.error();
    return g;
}

} // namespace zbddc
