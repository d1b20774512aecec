// What a run is asked about, read from the words a user gives: evidence cases from a UAI .evid
// file or a `VAR=state,...` list, and the values of a circuit's free inputs.
#pragma once

#include "ir/circuit.h"
#include "ir/result.h"
#include "runtime/evidence.h"

#include <string>
#include <vector>

namespace zbddc::pipeline {

// `evidence`: "" (one case, nothing observed), a list with '=' in it, or a .evid file read in
// `layout`.
Result<EvidenceFile> readEvidenceCases(const std::string &evidence, EvidenceLayout layout,
                                       const std::vector<Variable> &variables);

// A file of whitespace-separated numbers ("" none).
Result<std::vector<double>> readFreeInputs(const std::string &path);

} // namespace zbddc::pipeline
