// A factor graph for loopy belief propagation: discrete variables and factors over them, each
// factor a dense table of natural-log values (log φ; -inf where φ = 0). Built from every input
// the project reads: a Bayesian network (one factor per CPT), a UAI MARKOV network or a .wcsp
// (log φ = -cost, so max-product is min-sum). Edges (factor, position in its scope) number the
// messages; the adjacency is kept as flat arrays, like every other graph here.
#pragma once

#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/frontends/wcsp/cost_network.h"
#include "ir/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace zbddc {

struct LoopyFactor {
    std::vector<uint32_t> scope;   // variables, scope.back() fastest in `logValues`
    std::vector<double> logValues; // one entry per joint state of the scope
};

struct FactorGraph {
    std::string file;                  // for diagnostics
    std::vector<std::string> names;    // variable names
    std::vector<uint32_t> domainSizes; // states per variable
    std::vector<LoopyFactor> factors;

    // Edges: edge e joins factor edgeFactor[e] and variable edgeVariable[e]; the edges of factor
    // f are factorEdgeStart[f] .. factorEdgeStart[f+1]-1 in scope order. Message e holds
    // domainSizes[edgeVariable[e]] entries from messageOffset[e].
    std::vector<uint32_t> factorEdgeStart;
    std::vector<uint32_t> edgeFactor, edgeVariable;
    std::vector<uint64_t> messageOffset; // size edges + 1
    // The edges of variable v: variableEdges[variableEdgeStart[v] .. variableEdgeStart[v+1]-1].
    std::vector<uint32_t> variableEdgeStart, variableEdges;
    // Per-variable arrays (beliefs, sums of messages) hold variable v's states from stateOffset[v].
    std::vector<uint64_t> stateOffset; // size variables + 1

    size_t numVariables() const { return domainSizes.size(); }
    size_t numEdges() const { return edgeFactor.size(); }
    uint64_t messageEntries() const { return messageOffset.empty() ? 0 : messageOffset.back(); }
    uint32_t degree(uint32_t v) const { return variableEdgeStart[v + 1] - variableEdgeStart[v]; }
    // Whether no factor has more than two variables (the pairwise models of the GPU designs).
    bool pairwise() const;
};

// The largest factor LBP accepts (entries); a larger one is reported, not allocated.
inline constexpr uint64_t kMaxLoopyFactorEntries = uint64_t{1} << 26;

// Fills the edge and adjacency arrays from names, domains and factors; checks every scope
// (variables in range, none repeated, table sizes that match).
Status finishFactorGraph(FactorGraph &graph);

Result<FactorGraph> factorGraphOfNetwork(const BayesNet &net);
// Every table expanded to its dense form; rows at or over the upper bound become -inf.
Result<FactorGraph> factorGraphOfCostNetwork(const CostNetwork &net, const std::string &file);

} // namespace zbddc
