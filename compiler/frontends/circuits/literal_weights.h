// Literal weights for a weighted model count (docs/formats/circuits.md), in the conventions of
// the model-counting tools and competitions: `c p weight LIT W 0` lines (MC 2021 on), `w LIT W`
// lines (MC 2020, minic2d), one `c weights W1 W1' W2 W2' ...` line (every variable's positive
// and negative weight in turn), or a plain table of `VAR W W'` rows. A `p cnf N M` line says how
// many variables there are. Variables not named weigh 1 both ways (the plain model count).
#pragma once

#include "compiler/frontends/circuits/circuit_lower.h"
#include "ir/input_batch.h"
#include "ir/result.h"

#include <span>
#include <string>
#include <string_view>

namespace zbddc {

// A weighted variable must have both literals' weights (no 1 − w guess: conventions differ).
Result<LiteralWeights> parseLiteralWeights(std::string_view text, const std::string &name);
Result<LiteralWeights> readLiteralWeightsFile(const std::string &path);

// One weight vector per case (the neurosymbolic batch: one circuit, B weightings): the weight
// inputs vary, in the order weightInput(n, 1, false), weightInput(n, 1, true), ... (ascending),
// the indicators are 1. Each case's weights are padded with 1 to the circuit's variables.
InputBatch literalWeightBatch(const Circuit &circuit, std::span<const LiteralWeights> cases);

} // namespace zbddc
