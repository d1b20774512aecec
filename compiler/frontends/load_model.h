// One entry point from a model file to the compiler's data, chosen by the file's extension.
#pragma once

#include "compiler/frontends/zdd/zdd_model.h"
#include "ir/circuit.h"
#include "ir/result.h"

#include <string>

namespace zbddc {

// A ZBDD-compressed MLF from a .zdd (ours or SAPPOROBDD's export).
Result<ZddModel> loadZddModel(const std::string &path);

// The model's circuit (seed 003 typeA/typeB lowering for ZBDD inputs), verified.
Result<Circuit> loadCircuit(const std::string &path);

std::string fileExtension(const std::string &path); // lower-case, with the dot; "" if none

} // namespace zbddc
