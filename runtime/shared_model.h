// `zbddc run model.so`: a model.so written by the CPU backend, dlopened, with its meaning rebuilt
// from zbdd_metadata() (format in docs/c-api.md) and its zbdd_eval / zbdd_adjoints behind the
// Engine interface.
#pragma once

#include "runtime/engine.h"

#include <string>
#include <string_view>

namespace zbddc {

// What the metadata says: the compiled-in semiring and numeric mode, and an interface-only
// Circuit (inputs, variables, output names; no nodes) for evidence and the task answers.
struct ModelMetadata {
    Semiring semiring = Semiring::SumProduct;
    Numeric numeric = Numeric::Float64;
    Circuit interface;
    size_t numOutputs = 0;
};

// `name` is used in error messages (`name:line: ...`).
Result<ModelMetadata> parseModelMetadata(std::string_view text, const std::string &name);

struct SharedModel {
    ModelMetadata metadata;
    std::unique_ptr<Engine> engine; // holds the library open
};

Result<SharedModel> loadSharedModel(const std::string &path);

} // namespace zbddc
