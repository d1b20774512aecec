// Loopy BP's answers as task results (runtime/tasks.h): MAR from the beliefs, PR from the Bethe
// approximation of ln Z(e), MPE decoded from max-product's max-marginals (each variable its best
// state) with the assignment's exact log score recomputed from the factors. Every result carries
// its convergence report, and so says it is approximate.
#pragma once

#include "compiler/loopy/factor_graph.h"
#include "runtime/device.h"
#include "runtime/loopy/loopy_bp.h"
#include "runtime/tasks.h"

#include <span>
#include <vector>

namespace zbddc {

// `options.semiring` is set from the task (max-product for MPE, sum-product otherwise). `device`:
// Cpu, Cuda (flooding only; the residual update order and a missing GPU fall back to the CPU, and
// the result's `device` says why), or Auto (the GPU where usable).
std::vector<Result<TaskResult>> runLoopyTasks(const FactorGraph &graph, Task task,
                                              std::span<const Evidence> cases, LoopyOptions options,
                                              DeviceKind device = DeviceKind::Cpu);

// Σ_f log φ_f(x): ln P(x) for a network's factor graph, minus the total cost for a cost network.
double assignmentLogScore(const FactorGraph &graph, std::span<const uint32_t> assignment);

} // namespace zbddc
