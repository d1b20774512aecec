// A cost network's solution (bucket elimination, a problem.so) as a task result: the MPE's
// assignment, its exact cost as text, where it ran and the elimination's sizes.
#pragma once

#include "compiler/frontends/wcsp/cost_network.h"
#include "runtime/bucket_elimination/solve_be.h"
#include "runtime/tasks.h"

namespace zbddc::pipeline {

TaskResult taskResultOf(const CostNetwork &net, const Solution &solution);

} // namespace zbddc::pipeline
