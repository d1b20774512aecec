// A batch of literal weightings for one circuit (docs/formats/circuits.md, "Batches of weights"):
// the neurosymbolic case, one circuit and B weight vectors. A `literals L1 L2 ...` line names the
// columns (signed DIMACS literals), then each line is one case, a weight per column; without it
// the columns are w(x1) w(¬x1) w(x2) w(¬x2) ..., as on a `c weights` line. Other `c` lines are
// comments.
#pragma once

#include "compiler/frontends/circuits/circuit_lower.h"
#include "ir/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zbddc {

struct WeightCases {
    std::vector<int32_t> literals; // the columns
    std::vector<double> weights;   // count() × literals.size(), case by case
    size_t count() const { return literals.empty() ? 0 : weights.size() / literals.size(); }
    uint32_t numVars() const; // the largest variable a column names
};

// A named variable must have both literals' columns, as in a weights file (literal_weights.h).
Result<WeightCases> parseWeightCases(std::string_view text, const std::string &name);
Result<WeightCases> readWeightCasesFile(const std::string &path);

// Case k's weights: `base` (a --weights file's, or none) with the case's columns over it, over
// max(base's, the columns') variables.
LiteralWeights caseWeights(const WeightCases &cases, size_t k, const LiteralWeights &base);

// The circuit's literal weights turned into free inputs, in input order (w(¬x1), w(x1), w(¬x2),
// ...: circuit_lower.h), so that a run supplies each case's (TaskOptions::freeInputs, one case at
// a time); returns every case's values in that order, over the weights the circuit had as base.
// The circuit's variables must include the columns' (loadLogicCircuit's `minVariables`).
std::vector<std::vector<double>> freeWeightInputs(Circuit &circuit, const WeightCases &cases);

} // namespace zbddc
