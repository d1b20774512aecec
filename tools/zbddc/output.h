// Printing results (UAI competition formats, JSON) and writing output files atomically.
#pragma once

#include "ir/result.h"
#include "runtime/tasks.h"
#include "support/json.h"

#include <functional>
#include <iosfwd>
#include <string>

namespace zbddc::cli {

// Prints "zbddc: error: <diagnostic>" (or the diagnostic's file:line form) to stderr; returns 1.
int reportError(const Diagnostic &d);

// Writes through a temporary file in the same folder and renames it into place, so a failure
// leaves no half-written output behind.
Status writeFileAtomically(const std::string &path, const std::function<bool(std::ostream &)> &write);

void printUai(const TaskResult &r, const std::vector<Variable> &variables, std::ostream &out);

// A small JSON writer: enough for our result objects (jsonString in support/json.h).
std::string jsonNumber(double v); // non-finite values as null, with log10 carrying the scale
void printJson(const TaskResult &r, const std::vector<Variable> &variables, std::ostream &out);

} // namespace zbddc::cli
