// `zbddc run model.so`: a model.so written by the CPU backend, dlopened, with its meaning rebuilt
// from zbdd_metadata() (format in docs/c-api.md) and its zbdd_eval / zbdd_adjoints behind the
// Engine interface.
#pragma once

#include "ir/model_interface.h"
#include "runtime/engine.h"

#include <string>

namespace zbddc {

struct SharedModel {
    ModelMetadata metadata;
    std::unique_ptr<Engine> engine; // holds the library open
};

Result<SharedModel> loadSharedModel(const std::string &path);

} // namespace zbddc
