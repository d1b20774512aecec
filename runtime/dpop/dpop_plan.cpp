#include "runtime/dpop/dpop_plan.h"

#include "compiler/elimination/elimination_order.h"
#include "compiler/elimination/elimination_stats.h"

#include <algorithm>

namespace zbddc {

std::vector<uint32_t> agentMapOf(const CostNetwork &network, const DpopOptions &options) {
    return options.agentOf.empty() ? oneAgentPerVariable(network.numVariables()) : options.agentOf;
}

uint32_t agentCount(const std::vector<uint32_t> &agentOf) {
    return agentOf.empty() ? 0 : *std::max_element(agentOf.begin(), agentOf.end()) + 1;
}

std::vector<uint32_t> agentOrderOf(const CostNetwork &network, const std::vector<uint32_t> &agentOf,
                                   const DpopOptions &options) {
    const uint32_t agents = agentCount(agentOf);
    if (!options.order.empty())
        return agentOrderFromVariables(options.order, agentOf, agents);
    return minFillAgentOrder(network, agentOf, agents);
}

Result<Solution> dpopSolution(const CostNetwork &network, const PseudoTree &tree, Cost optimum,
                              std::vector<uint32_t> assignment) {
    Solution sol;
    std::vector<uint32_t> variableOrder(network.numVariables());
    size_t i = 0;
    for (uint32_t a : tree.order)
        for (uint32_t v : tree.variables[a])
            variableOrder[i++] = v;
    const OrderStats os = analyzeOrder(
        buildInteractionGraph(network.domainSizes, functionScopes(network)), variableOrder);
    sol.stats.heuristic = "pseudo-tree";
    sol.stats.inducedWidth = os.inducedWidth;
    sol.stats.largestTableEntries = os.largestMessageEntries;
    sol.stats.totalTableEntries = os.totalMessageEntries;
    sol.assignment = std::move(assignment);
    sol.feasible = network.feasible(optimum);
    sol.cost = sol.feasible ? optimum : network.forbidden();
    if (sol.feasible)
        if (Status s = checkAssignmentCost(network, sol.assignment, optimum); !s)
            return s.error();
    return sol;
}

void DpopCounts::add(const DpopCounts &r) {
    utilMessages += r.utilMessages;
    valueMessages += r.valueMessages;
    messageBytes += r.messageBytes;
    largestUtilEntries = std::max(largestUtilEntries, r.largestUtilEntries);
    largestUtilWork = std::max(largestUtilWork, r.largestUtilWork);
    simulatedMs = std::max(simulatedMs, r.simulatedMs);
}

void addRankReport(DpopStats &stats, const DpopRankReport &r) {
    stats.add(r);
    stats.agentComputeMs.resize(r.agentComputeMs.size(), 0.0);
    for (size_t a = 0; a < r.agentComputeMs.size(); ++a)
        stats.agentComputeMs[a] += r.agentComputeMs[a];
}

} // namespace zbddc
