// A smooth d-DNNF (smooth.h) into the Circuit IR: OR becomes ⊕, AND ⊗, and each literal the
// product of its indicator λ and its weight θ, so the same circuit answers a weighted model
// count (PR: every λ 1), conditioned counts (evidence sets λ), literal marginals (MAR, from the
// λ adjoints), the most probable model (MPE, max-product) and the gradient of the count with
// respect to every literal weight (the θ adjoints). Darwiche 2003 §3 builds the same polynomial
// for networks; Chavira and Darwiche 2008 §3 weight the literals of a compiled CNF.
#pragma once

#include "compiler/frontends/circuits/logic_circuit.h"
#include "ir/circuit.h"
#include "ir/result.h"

#include <vector>

namespace zbddc {

// Variable x_v (1-based) is circuit variable v − 1, named "x<v>", with states "0" and "1";
// inputs 2(v − 1) + s are its indicators λ(x_v = s), inputs 2·numVars + 2(v − 1) + s the
// literal weights θ(x_v = s) (s = 1 the positive literal), parameters of value 1 until set.
inline uint32_t indicatorInput(uint32_t var, bool positive) {
    return 2 * (var - 1) + positive;
}
inline uint32_t weightInput(uint32_t numVars, uint32_t var, bool positive) {
    return 2 * numVars + indicatorInput(var, positive);
}

// ANDs and ORs of many children become balanced trees of ⊗ and ⊕ (fewer levels than chains).
// The circuit must be smooth over its numVars variables (smoothCircuit's output).
Circuit lowerLogicCircuit(const LogicCircuit &smoothCircuit);

// Weights of the literals of variables 1..numVars (index v − 1); see literal_weights.h.
struct LiteralWeights {
    std::vector<double> positive, negative;
    uint32_t numVars() const { return static_cast<uint32_t>(positive.size()); }
};

// The circuit's weight parameters set to `weights` (variables beyond them keep weight 1); fails
// where `weights` names variables the circuit lacks.
Status setLiteralWeights(Circuit &circuit, const LiteralWeights &weights);
// The circuit's variable count (the number of x_v).
inline uint32_t literalVariableCount(const Circuit &circuit) {
    return static_cast<uint32_t>(circuit.variables.size());
}

} // namespace zbddc
