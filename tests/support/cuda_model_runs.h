// A CudaModel's forward and backward passes as the GPU tests run them: evaluate() then
// adjoints() of output 0, each synchronous and each after the results were poisoned with NaN (so a
// value a kernel skipped shows).
#pragma once

#include "backends/cuda/cuda_model.h"

#include "tests/catch.hpp"

#include <span>
#include <vector>

namespace zbddc::testing {

// count × numOutputs values and count × numInputs adjoints of output 0.
struct Run {
    std::vector<double> outputs, adjoints;
};

inline Run runSynchronously(cuda::CudaModel &model, std::span<const double> xs, size_t count) {
    REQUIRE(model.poisonResults().ok());
    auto out = model.evaluate(xs, count);
    if (!out)
        FAIL(out.error().str());
    REQUIRE(model.poisonResults().ok());
    auto grad = model.adjoints(xs, count, 0);
    if (!grad)
        FAIL(grad.error().str());
    return {std::move(*out), std::move(grad->adjoints)};
}

} // namespace zbddc::testing
