// Random weightings of a circuit's literals (the neurosymbolic batch: one circuit, B weight
// vectors), for the tests and benchmarks of batches over literal weights.
#pragma once

#include "compiler/frontends/circuits/circuit_lower.h"

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace zbddc::testing {

// `count` weightings of `variables` variables, each literal's weight uniform in [0.05, 1).
inline std::vector<LiteralWeights> randomLiteralWeights(uint32_t variables, size_t count,
                                                        std::mt19937 &rng) {
    std::uniform_real_distribution<double> u(0.05, 1.0);
    std::vector<LiteralWeights> cases(count);
    for (LiteralWeights &w : cases)
        for (uint32_t v = 0; v < variables; ++v) {
            w.positive.push_back(u(rng));
            w.negative.push_back(u(rng));
        }
    return cases;
}

} // namespace zbddc::testing
