// Printing results (UAI competition formats, JSON) and writing output files atomically.
#pragma once

#include "ir/file_io.h" // writeFileAtomically: output files whole or not at all
#include "ir/number_text.h"
#include "ir/result.h"
#include "pipeline/json_results.h"
#include "pipeline/result_notes.h"
#include "pipeline/uai_results.h"
#include "runtime/tasks.h"
#include "support/json.h"

#include <functional>
#include <iosfwd>
#include <string>

namespace zbddc::cli {

// Prints "zbddc: error: <diagnostic>" (or the diagnostic's file:line form) to stderr; returns 1.
int reportError(const Diagnostic &d);

// Prints `file:line: warning: ...` lines to stderr, the first kShownWarnings of them, then how
// many more there were (300 bad rows used to print 300 lines). Notes (`kind` "note") the same.
inline constexpr size_t kShownWarnings = 10;
void printWarnings(const std::vector<Diagnostic> &warnings, std::string_view kind = "warning");

// The UAI result formats (pipeline/uai_results.h).
using pipeline::log10Text;
using pipeline::uaiTaskLine;

// Where `zbddc run` puts its results: stdout, `-o FILE`, or with --uai-output the file
// `<model file name>.<TASK>` in the working directory, as the UAI competitions' tools name
// them. Files are written atomically. Returns 0, or 1 after printing why.
int emitRunOutput(const std::string &text, const std::string &outputFile, bool uaiOutput,
                  const std::string &model, const std::string &task);

// The JSON result objects (pipeline/json_results.h).
using pipeline::deviceJson;
using pipeline::writeJsonResult;

// "a", "a or b", "a, b or c": the choices a message or a help line names.
std::string choiceList(const std::vector<std::string> &names);

} // namespace zbddc::cli
