// What a batch of answers says beside its values, as the lines a user reads (`zbddc run` prints
// them on stderr where the UAI text has no place for them): loopy BP's convergence, and a float32
// or log32 run's error bounds and the cases answered in float64 or log instead.
#pragma once

#include "ir/result.h"
#include "runtime/tasks.h"

#include <string>
#include <vector>

namespace zbddc::pipeline {

// "route lbp (WHY): approximate answers ...; K of N case(s) converged (tolerance T), largest last
// residual R" for the answers that loopy BP gave.
std::string loopySummary(const std::vector<Result<TaskResult>> &batch, const std::string &routeWhy,
                         double tolerance);
// Lines ending in "\n", or "" where no answer carries an error bound or a numeric note.
std::string errorBoundNotes(const std::vector<Result<TaskResult>> &batch);

} // namespace zbddc::pipeline
