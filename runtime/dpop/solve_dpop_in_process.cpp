// DPOP on one process: every agent on rank 0, every message delivered in place. The tests' way to
// check the protocol without MPI, and what a distributed run on one rank amounts to.
#include "runtime/dpop/dpop_plan.h"
#include "support/timer.h"

#include <chrono>

namespace zbddc {

Result<DpopRun> solveDpopInProcess(const CostNetwork &network, const DpopOptions &options) {
    const auto t0 = std::chrono::steady_clock::now();
    DpopRun run;
    run.reporter = true;
    const std::vector<uint32_t> agentOf = agentMapOf(network, options);
    auto tree = buildPseudoTree(network, agentOf, agentOrderOf(network, agentOf, options));
    if (!tree)
        return tree.error();
    run.stats.setupMs = msSince(t0);
    const auto t1 = std::chrono::steady_clock::now();
    auto report = runDpopRank(network, *tree, std::vector<int>(tree->numAgents, 0), nullptr,
                              {options.executor, options.execution, options.timeoutS});
    if (!report)
        return report.error();
    run.stats.protocolMs = msSince(t1);
    run.stats.agents = tree->numAgents;
    run.stats.treeDepth = tree->depth();
    run.stats.pseudoTree = options.order.empty() ? "min-fill" : "given";
    addRankReport(run.stats, *report);
    auto sol = dpopSolution(network, *tree, report->optimum, std::move(report->assignment));
    if (!sol)
        return sol.error();
    run.solution = std::move(*sol);
    run.solution.device = report->device;
    run.solution.stats.largestTableEntries = run.stats.largestUtilEntries;
    run.solution.stats.totalMs = msSince(t0);
    return run;
}

} // namespace zbddc
