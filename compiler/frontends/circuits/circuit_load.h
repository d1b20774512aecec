// From a knowledge compiler's file to a verified Circuit: read (.nnf or .sdd with its .vtree),
// smooth over every variable the circuit or its weights name, lower, weigh.
#pragma once

#include "compiler/frontends/circuits/logic_circuit.h"
#include "ir/circuit.h"
#include "ir/result.h"

#include <string>

namespace zbddc {

bool isLogicCircuitFile(const std::string &path); // .nnf or .sdd
// `vtreePath` "": an .sdd's vtree is the .vtree of the same name beside it (unused for an .nnf).
Result<LogicCircuit> readLogicCircuitFile(const std::string &path,
                                          const std::string &vtreePath = {});
// `weightsPath` "" leaves every literal weight 1 (the model count); the circuit is smoothed over
// at least `minVariables` variables (those a batch of weightings names: weight_cases.h).
Result<Circuit> loadLogicCircuit(const std::string &path, const std::string &weightsPath = {},
                                 uint32_t minVariables = 0, const std::string &vtreePath = {});

} // namespace zbddc
