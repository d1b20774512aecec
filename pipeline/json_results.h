// The JSON result object of one answer (docs/cli.md, `zbddc run --json`): the task, the value
// and its log10, what the task adds (marginals, an assignment, a cost, a convergence report, an
// error bound), the route, and where it ran as words ("device") and as data ("device_report").
#pragma once

#include "runtime/tasks.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace zbddc::pipeline {

void writeJsonResult(const TaskResult &r, const std::vector<Variable> &variables,
                     std::ostream &out);
// `"device": "<label>", "device_report": {kind, name, ordinal, arithmetic, route, notes}`, the
// members every result object ends with; `spaced`: ", " and ": " between them.
std::string deviceJson(const DeviceReport &device, bool spaced);
// A cost network's optimum (bucket elimination, a problem.so, DPOP) as one object and a newline:
// feasible, cost, assignment, where it ran, the order's width and largest table, the time.
// `moreJson`: further members, each written as `, "name": value`.
void writeJsonSolution(const TaskResult &r, const std::vector<Variable> &variables,
                       const std::string &moreJson, std::ostream &out);

} // namespace zbddc::pipeline
