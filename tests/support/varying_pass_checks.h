// Model's passes over a batch of shared and varying inputs (ir/input_batch.h) against the same
// vectors whole on the reference evaluator: every output, and the varying inputs' adjoints.
#pragma once

#include "runtime/model.h"

#include "tests/catch.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace zbddc::testing {

// `count` vectors over `numInputs` inputs, about a third of them varying (none, or all, where
// `share` says so: 0 or 1): values in [0.5, 1.5), and a varying value 0 one time in four (an
// indicator's, which log space takes as -inf).
inline InputBatch randomVaryingBatch(size_t numInputs, size_t count, std::mt19937 &rng,
                                     double share = 1.0 / 3) {
    std::uniform_real_distribution<double> u(0.5, 1.5);
    InputBatch b;
    for (size_t i = 0; i < numInputs; ++i) {
        b.shared.push_back(u(rng));
        if (std::uniform_real_distribution<double>(0, 1)(rng) < share)
            b.varying.push_back(static_cast<uint32_t>(i));
    }
    std::vector<double> v(b.varying.size());
    for (size_t k = 0; k < count; ++k) {
        for (double &x : v)
            x = rng() % 4 == 0 ? 0.0 : u(rng);
        b.add(v);
    }
    return b;
}

inline void checkClose(std::span<const double> got, std::span<const double> want, double tol) {
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        INFO("value " << i);
        if (std::isnan(want[i])) // float32 overflowing to inf, times 0
            CHECK(std::isnan(got[i]));
        else if (std::isinf(want[i]))
            CHECK(got[i] == want[i]);
        else
            CHECK(got[i] == Approx(want[i]).epsilon(tol).margin(tol));
    }
}

// m.evaluate, m.forwardBackward and m.adjoints over `b` against the reference evaluator's passes
// over b.dense(), within `tol` (relative, and absolute near 0 or for logs).
inline void checkVaryingPass(Model &m, const Circuit &c, Semiring s, Numeric n,
                             const InputBatch &b, size_t output, double tol) {
    DeviceOptions reference;
    reference.device = DeviceKind::Reference;
    Model ref = Model::fromCircuit(c, reference);
    const std::vector<double> dense = b.dense();
    auto wantOut = ref.evaluate(s, n, dense, b.count);
    auto wantAdj = ref.adjoints(s, n, dense, b.count, output);
    REQUIRE(wantOut.ok());
    REQUIRE(wantAdj.ok());
    const std::vector<double> want = b.varyingColumns(*wantAdj);
    auto out = m.evaluate(s, n, b);
    if (!out)
        FAIL(out.error().str());
    checkClose(*out, *wantOut, tol);
    auto both = m.forwardBackward(s, n, b, output);
    if (!both)
        FAIL(both.error().str());
    checkClose(both->outputs, *wantOut, tol);
    checkClose(both->adjoints, want, tol);
    auto adj = m.adjoints(s, n, b, output);
    if (!adj)
        FAIL(adj.error().str());
    checkClose(*adj, want, tol);
}

} // namespace zbddc::testing
