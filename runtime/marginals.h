// MAR from one case's input adjoints, shared by the float64 and float32 task paths.
#pragma once

#include "runtime/tasks.h"

namespace zbddc {

// P(X=x, e) = ∂f/∂λ_x (Darwiche 2003), divided by the root (logs in log space); observed
// variables get their observed state. `adj[j]` is the adjoint of input `indicators[j]`
// (runtime/evidence.h's indicatorInputs: the varying inputs of an evidence batch); inputs of
// `indicators` that are not indicators (a batch's varying free inputs) are skipped.
void marginalsFromAdjoints(const ModelInterface &c, Numeric numeric,
                           std::span<const uint32_t> indicators, std::span<const double> adj,
                           double root, const Evidence &ev, TaskResult &r);

} // namespace zbddc
