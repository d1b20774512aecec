// A cost network's solution (bucket elimination, a problem.so) as a task result: the MPE's
// assignment, its exact cost as text, where it ran and the elimination's sizes.
#pragma once

#include "compiler/frontends/wcsp/cost_network.h"
#include "runtime/bucket_elimination/solve_be.h"
#include "runtime/evidence.h"
#include "runtime/tasks.h"

#include <span>
#include <string>
#include <vector>

namespace zbddc::pipeline {

TaskResult taskResultOf(const CostNetwork &net, const Solution &solution);

// A route of optima answers MPE only, one solve per case: `solve(evidence states)` for each case
// whose evidence holds together; `what` says what refuses another task.
template <class Solve>
std::vector<Result<TaskResult>> solveEachCase(Task task, std::span<const Evidence> cases,
                                              const std::string &what, Solve solve) {
    std::vector<Result<TaskResult>> results;
    for (const Evidence &e : cases)
        if (task != Task::Mpe)
            results.push_back(error(what + " answers mpe only (optimal cost and assignment)"));
        else if (!e.contradiction.empty())
            results.push_back(error("the evidence contradicts itself: " + e.contradiction));
        else
            results.push_back(solve(e.states));
    return results;
}

} // namespace zbddc::pipeline
