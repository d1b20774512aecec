// The min-fill elimination order of a cost network: the order most tests build their bucket
// programs with (any order is correct; this one keeps the tables small).
#pragma once

#include "compiler/elimination/elimination_order.h"
#include "compiler/frontends/wcsp/cost_network.h"

#include <vector>

namespace zbddc::testing {

inline std::vector<uint32_t> minFillOrder(const CostNetwork &net) {
    std::vector<std::vector<uint32_t>> scopes;
    for (const auto &f : net.functions)
        scopes.push_back(f.scope);
    return greedyOrder(buildInteractionGraph(net.domainSizes, scopes), OrderHeuristic::MinFill);
}

} // namespace zbddc::testing
