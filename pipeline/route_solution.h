// A cost network's solution (bucket elimination, a problem.so) as a task result: the MPE's
// assignment, its exact cost as text, where it ran and the elimination's sizes.
#pragma once

#include "compiler/frontends/wcsp/cost_network.h"
#include "runtime/bucket_elimination/solve_be.h"
#include "runtime/tasks.h"

#include <functional>
#include <span>
#include <vector>

namespace zbddc::pipeline {

TaskResult taskResultOf(const CostNetwork &net, const Solution &solution);

// The answers of a route that solves a cost network (bucket elimination, a problem.so): MPE only
// (`refusal` for any other task), one solve per case, a case that contradicts itself refused.
std::vector<Result<TaskResult>>
answerEachMpe(Task task, std::span<const Evidence> cases, const char *refusal,
              const std::function<Result<TaskResult>(const Evidence &)> &solve);

} // namespace zbddc::pipeline
