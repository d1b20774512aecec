// What a run is asked about, read from the words a user gives: evidence cases from a UAI .evid
// file or a `VAR=state,...` list, and the values of a circuit's free inputs.
#pragma once

#include "ir/circuit.h"
#include "ir/result.h"
#include "pipeline/model_file.h"
#include "runtime/evidence.h"
#include "runtime/tasks.h"

#include <string>
#include <vector>

namespace zbddc::pipeline {

// `evidence`: "" (one case, nothing observed), a list with '=' in it, or a .evid file read in
// `layout`.
Result<EvidenceFile> readEvidenceCases(const std::string &evidence, EvidenceLayout layout,
                                       const std::vector<Variable> &variables);

// The cases of a run of `task` on a `kind` model by `route` (readEvidenceCases, layout by name:
// "single", "batch" or "" by the file's structure). A contradicted case is answered as P(e) = 0,
// with a note in `notes` saying why, so that it is not mistaken for a model's zero; where the run
// seeks an optimum (a cost network's MPE but on the junction tree), there is no P(e) and the
// evidence is in error.
Result<EvidenceFile> readRunCases(const std::string &evidence, const std::string &layout,
                                  const std::vector<Variable> &variables, ModelKind kind, Task task,
                                  const std::string &route, std::vector<Diagnostic> &notes);

// A file of whitespace-separated numbers ("" none).
Result<std::vector<double>> readFreeInputs(const std::string &path);

} // namespace zbddc::pipeline
