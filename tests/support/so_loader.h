// Loads a model.so through the plain C ABI of zbdd_model.h, as any C program would.
#pragma once

#include "backends/cpu/include/zbdd_model.h"

#include "tests/catch.hpp"

#include <dlfcn.h>

#include <filesystem>

namespace zbddc::testing {

// A dlopened model.so and its C ABI.
struct Loaded {
    void *lib = nullptr;
    size_t (*numInputs)(void) = nullptr;
    size_t (*numOutputs)(void) = nullptr;
    int (*eval)(const double *, double *, size_t) = nullptr;
    int (*adjoints)(const double *, size_t, double *, size_t) = nullptr;
    const char *(*metadata)(void) = nullptr;
    explicit Loaded(const std::filesystem::path &path) {
        lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        REQUIRE(lib != nullptr);
        numInputs = reinterpret_cast<decltype(numInputs)>(dlsym(lib, "zbdd_num_inputs"));
        numOutputs = reinterpret_cast<decltype(numOutputs)>(dlsym(lib, "zbdd_num_outputs"));
        eval = reinterpret_cast<decltype(eval)>(dlsym(lib, "zbdd_eval"));
        adjoints = reinterpret_cast<decltype(adjoints)>(dlsym(lib, "zbdd_adjoints"));
        metadata = reinterpret_cast<decltype(metadata)>(dlsym(lib, "zbdd_metadata"));
        REQUIRE((numInputs && numOutputs && eval && adjoints && metadata));
    }
    ~Loaded() { dlclose(lib); }
};

} // namespace zbddc::testing
