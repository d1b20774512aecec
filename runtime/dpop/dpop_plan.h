// What every rank of a DPOP run works out before the protocol, and what the reporting rank does
// after it: the agent map, the agents' order (given, or min-fill), the pseudo-tree; and the
// solution assembled from the optimum and the ranks' assignments, checked against the original
// tables as the centralised route checks its own.
#pragma once

#include "compiler/elimination/pseudo_tree.h"
#include "runtime/dpop/dpop_rank.h"
#include "runtime/dpop/solve_dpop.h"

namespace zbddc {

std::vector<uint32_t> agentMapOf(const CostNetwork &network, const DpopOptions &options);
uint32_t agentCount(const std::vector<uint32_t> &agentOf);

// The agent order of `options`: from the given variable order, or min-fill on the agent graph.
std::vector<uint32_t> agentOrderOf(const CostNetwork &network, const std::vector<uint32_t> &agentOf,
                                   const DpopOptions &options);

// The solution of `optimum` and `assignment`, its cost recomputed; the induced width and largest
// table are those of the pseudo-tree's variable order.
Result<Solution> dpopSolution(const CostNetwork &network, const PseudoTree &tree, Cost optimum,
                              std::vector<uint32_t> assignment);

// Per-rank counts into run totals: one report, as on one process.
void addRankReport(DpopStats &stats, const DpopRankReport &report);

} // namespace zbddc
