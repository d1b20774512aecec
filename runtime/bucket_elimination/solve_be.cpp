#include "runtime/bucket_elimination/solve_be.h"

#include "compiler/elimination/bucket_program.h"
#include "ir/tensor_interpret.h"
#include "support/timer.h"

#include <chrono>
#include <cmath>
#include <cstdio>

namespace zbddc {

Result<std::vector<uint32_t>> planElimination(const CostNetwork &network, const BeOptions &options,
                                              BeStats &stats) {
    const size_t n = network.numVariables();
    const bool hasEvidence = !options.evidence.empty();
    if (hasEvidence && options.evidence.size() != n)
        return error("evidence must give one entry per variable");

    // The graph BE works on: evidence variables are sliced out of every scope.
    std::vector<std::vector<uint32_t>> scopes;
    for (const CostFunction &f : network.functions) {
        scopes.emplace_back();
        for (uint32_t v : f.scope)
            if (!hasEvidence || options.evidence[v] == UINT32_MAX)
                scopes.back().push_back(v);
    }
    const InteractionGraph graph = buildInteractionGraph(network.domainSizes, scopes);
    auto t0 = std::chrono::steady_clock::now();
    std::vector<uint32_t> order = options.order;
    stats.heuristic =
        order.empty() ? std::string(orderHeuristicName(options.heuristic)) : "given";
    if (order.empty())
        order = greedyOrder(graph, options.heuristic);
    else if (Status s = checkOrder(order, n); !s)
        return s.error();
    const OrderStats os = analyzeOrder(graph, order);
    stats.orderMs = msSince(t0);
    stats.inducedWidth = os.inducedWidth;
    stats.largestTableEntries = os.largestMessageEntries;
    stats.largestBucketEntries = os.largestBucketEntries;
    stats.totalTableEntries = os.totalMessageEntries;
    double needed = os.totalMessageEntries;
    if (!options.fuseBuckets)
        needed += os.largestBucketEntries * static_cast<double>(n); // joined tables, a bound
    if (needed > options.maxTotalEntries && !options.incompleteTables) {
        char msg[200];
        std::snprintf(msg, sizeof msg,
                      "bucket elimination needs about 10^%.1f table entries (induced width %u, "
                      "largest table 10^%.1f), beyond the limit of 10^%.1f",
                      std::log10(needed), os.inducedWidth, std::log10(os.largestMessageEntries),
                      std::log10(options.maxTotalEntries));
        return error(msg);
    }
    return order;
}

Result<Solution> solveBucketElimination(const CostNetwork &network, const BeOptions &options) {
    const auto start = std::chrono::steady_clock::now();
    Solution sol;
    const size_t n = network.numVariables();
    const bool hasEvidence = !options.evidence.empty();
    auto order = planElimination(network, options, sol.stats);
    if (!order)
        return order.error();

    auto t0 = std::chrono::steady_clock::now();
    auto program = buildBucketProgram(network, *order, {options.fuseBuckets, options.evidence});
    if (!program)
        return program.error();
    sol.stats.buildMs = msSince(t0);
    sol.stats.ops = program->ops.size();
    sol.stats.levels = program->levels.size();

    t0 = std::chrono::steady_clock::now();
    auto executor = makeTensorExecutor(options.executor, options.execution);
    if (!executor)
        return executor.error();
    std::vector<TableData> incomplete;
    sol.assignment.assign(n, 0); // variables in no cost function keep value 0
    for (size_t v = 0; hasEvidence && v < n; ++v)
        if (options.evidence[v] != UINT32_MAX)
            sol.assignment[v] = options.evidence[v];
    Cost optimum = 0;
    if (options.incompleteTables) {
        if (Status s = markIncomplete(*program, network.upperBound); !s)
            return s.error();
        auto run = (*executor)->runIncomplete(*program);
        if (!run)
            return run.error();
        incomplete = std::move(run->tables);
        sol.device = std::move(run->device);
        sol.stats.solveMs = msSince(t0);
        t0 = std::chrono::steady_clock::now();
        optimum = programResultOf(*program, incomplete);
        recoverAssignmentOf(*program, incomplete, sol.assignment);
        sol.stats.tracebackMs = msSince(t0);
    } else { // the executor does the VALUE phase, where its tables are
        auto solved = (*executor)->solve(*program, sol.assignment);
        if (!solved)
            return solved.error();
        optimum = solved->optimum;
        sol.tied = solved->tied;
        sol.device = std::move(solved->device);
        sol.stats.execution = solved->times;
        sol.stats.tracebackMs = solved->times.valueMs;
        sol.stats.solveMs = msSince(t0) - solved->times.valueMs;
    }
    sol.feasible = network.feasible(optimum);
    sol.cost = sol.feasible ? optimum : network.forbidden();
    if (sol.feasible) // the answer must stand on its own
        if (Status s = checkAssignmentCost(network, sol.assignment, optimum); !s)
            return s.error();
    sol.stats.totalMs = msSince(start);
    return sol;
}

Status checkAssignmentCost(const CostNetwork &network, const std::vector<uint32_t> &assignment,
                           Cost optimum) {
    const Cost check = assignmentCost(network, assignment);
    if (!network.sameCost(check, optimum))
        return error("internal error: the recovered assignment costs " + network.costText(check) +
                     ", not the optimum " + network.costText(optimum));
    return Ok{};
}

} // namespace zbddc
