// Smoothing (Darwiche 2001): an equivalent d-DNNF whose every OR has children over the same
// variables, and whose root mentions every variable 1..numVars, so that the arithmetic circuit
// of a weighted model count sums each model once with every literal weight in it. A child
// missing variable x is conjoined with the gadget (x OR NOT x), whose value is w(x) + w(NOT x).
#pragma once

#include "compiler/frontends/circuits/logic_circuit.h"
#include "ir/result.h"

namespace zbddc {

// Also folds the constants (an AND with a FALSE child is FALSE, FALSE children of an OR go) and
// keeps only what the root reaches. Refuses an AND whose children share a variable (not
// decomposable: its products would count a literal weight twice); determinism is the format's
// promise (c2d's and d4's output, SDDs) and is not checked. A refusal names the node's line
// (LogicCircuit::line) and no file.
Result<LogicCircuit> smoothCircuit(const LogicCircuit &circuit);

} // namespace zbddc
