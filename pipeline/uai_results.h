// The UAI competitions' result formats (docs/cli.md), written: one case in the 2014+ layout, the
// task line then the solution line; a batch in the 2010 layout, the task line, the number of
// cases, then one solution line per case. A case that failed writes "0" as its line (nothing
// answered), so the lines still match the evidence cases. tests/support/uai_result_reader.h
// reads them back to the specifications.
#pragma once

#include "ir/result.h"
#include "runtime/tasks.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace zbddc::pipeline {

const char *uaiTaskLine(Task task); // "PR", "MAR", "MPE" (and "EVAL")
void writeUaiResult(const TaskResult &r, const std::vector<Variable> &variables, std::ostream &out);
void writeUaiBatch(Task task, const std::vector<Result<TaskResult>> &batch,
                   const std::vector<Variable> &variables, std::ostream &out);
// log10 of a probability as text every reader parses: a zero probability (-inf, which C++'s >>
// and strtod-based scorers do not all accept) writes the lowest finite double instead.
std::string log10Text(double log10);

} // namespace zbddc::pipeline
