// An interpreter of a Schedule, the oracle every pass is tested with: it must agree with
// evaluate() (ir/interpret.h) on the circuit the schedule came from. Float64 only.
#pragma once

#include "ir/result.h"
#include "ir/schedule.h"

#include <span>
#include <vector>

namespace zbddc {

// Runs the levels in order; inside a level every op reads the slots as they were when the level
// began (all results are committed at its end), as parallel hardware would see them. Returns the
// value of each output.
Result<std::vector<double>> interpretSchedule(const Schedule &schedule, std::span<const double> x,
                                              Semiring semiring);

} // namespace zbddc
