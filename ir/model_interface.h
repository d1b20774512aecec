// What a compiled model means to whoever feeds and reads it, without its nodes: the semiring its
// outputs are computed in, the variables that evidence names, the meaning of every input and the
// names of the outputs. A Circuit carries one (interfaceOf); a model.so carries one in its
// metadata text (docs/c-api.md), written and read here. Evidence, the tasks and the command line
// need no more than this, so a model.so answers them without a Circuit.
#pragma once

#include "ir/circuit.h"
#include "ir/interpret.h"

#include <string>
#include <string_view>
#include <vector>

namespace zbddc {

struct ModelInterface {
    Semiring semiring = Semiring::SumProduct; // a circuit's own; a model.so's compiled-in one
    std::vector<Variable> variables;
    std::vector<InputInfo> inputs;        // meaning of x[i]
    std::vector<std::string> outputNames; // one per output (may be empty)

    size_t numInputs() const { return inputs.size(); }
    size_t numOutputs() const { return outputNames.size(); }
};

ModelInterface interfaceOf(const Circuit &circuit);

// A model.so's metadata: its interface and the numeric mode it was compiled for.
struct ModelMetadata {
    ModelInterface interface;
    Numeric numeric = Numeric::Float64;
};

// The metadata grammar of ir/so_metadata.h: header `zbdd-model 1`, facts, variables, inputs, outputs.
std::string writeModelMetadata(const ModelMetadata &metadata);
// The metadata of `circuit` compiled for `semiring` in `numeric`.
std::string writeModelMetadata(const Circuit &circuit, Semiring semiring, Numeric numeric);

// `name` is used in error messages (`name:line: ...`).
Result<ModelMetadata> parseModelMetadata(std::string_view text, const std::string &name);

} // namespace zbddc
