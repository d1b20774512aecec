// What bucket elimination of a cost network will need, computed from the scopes and the order
// alone — before any table is allocated (Bistaffa et al. 2016 §2.1, Prop. 1: the induced width
// bounds BE's memory; the shape `zbddc stats X.wcsp` reports).
#pragma once

#include "compiler/elimination/elimination_order.h"
#include "compiler/frontends/wcsp/cost_network.h"

#include <string>
#include <vector>

namespace zbddc {

struct EliminationStats {
    std::string heuristic; // the order's heuristic, or "given"
    size_t variables = 0;
    size_t functions = 0; // cost functions (constraints) of the network
    uint32_t maxDomain = 0;
    uint32_t maxArity = 0;
    double inputEntries = 0; // rows of every input table, complete (sparse ones expanded)
    OrderStats order;        // induced width, largest/total message entries
    size_t buckets = 0;      // non-empty buckets = ops of the fused program
    size_t levels = 0;       // levels of independent buckets (depth of the elimination tree)
};

// `order` must be a permutation of the variables (checked); `heuristic` is only recorded.
Result<EliminationStats> eliminationStats(const CostNetwork &network,
                                          const std::vector<uint32_t> &order,
                                          const std::string &heuristic);

// Scopes of the network's cost functions, as buildInteractionGraph takes them.
std::vector<std::vector<uint32_t>> functionScopes(const CostNetwork &network);

} // namespace zbddc
