#include "backends/cpu/batched_loop.h"
#include "backends/cpu/dfs_order.h"
#include "ir/interpret.h"

#include "tests/catch.hpp"
#include "tests/support/close.h"
#include "tests/support/cpu_modes.h"
#include "tests/support/random_circuits.h"

#include <limits>

using namespace zbddc;
using zbddc::testing::close;
using zbddc::testing::CpuMode;
using zbddc::testing::kCpuModes;

namespace {
// The loop's options for `mode`: 3 threads, Minato et al. 2011's DFS order.
CpuOptions loopOptions(const Circuit &c, const CpuMode &mode) {
    CpuOptions options;
    options.semiring = mode.semiring;
    options.numeric = mode.numeric;
    options.threads = 3;
    options.order = dfsOrder(c).order;
    return options;
}
} // namespace

TEST_CASE("the data-driven batched loop equals the reference in every semiring and numeric",
          "[cpu][batched]") {
    std::mt19937 rng(23);
    for (int round = 0; round < 3; ++round) {
        const Circuit c = testing::randomCircuit({.inputs = 6, .ops = 120, .outputs = 3}, rng);
        for (const CpuMode &mode : kCpuModes) {
            INFO(semiringName(mode.semiring) << " " << numericName(mode.numeric));
            const CpuOptions options = loopOptions(c, mode);
            auto loop = BatchedLoop::build(c, options);
            REQUIRE(loop.ok());
            CHECK(loop->numSlots() < c.numNodes()); // liveness reuses slots
            const size_t batch = 37; // not a multiple of the lane count
            const size_t n = c.numInputs(), m = c.numOutputs();
            const std::vector<double> x = testing::randomInputs(rng, batch * n);
            std::vector<double> out(batch * m, std::numeric_limits<double>::quiet_NaN());
            REQUIRE(loop->evaluate(x, out, batch).ok());
            for (size_t s = 0; s < batch; ++s) {
                auto ref = evaluate(c, std::span(x.data() + s * n, n), mode.semiring, mode.numeric);
                REQUIRE(ref.ok());
                for (size_t o = 0; o < m; ++o) {
                    INFO("sample " << s << " output " << o);
                    CHECK(close(out[s * m + o], ref->values[c.outputs[o]]));
                }
            }
        }
    }
}

TEST_CASE("the data-driven loop's adjoint pass equals inputAdjoints in every semiring and numeric",
          "[cpu][batched]") {
    std::mt19937 rng(29);
    for (int round = 0; round < 3; ++round) {
        const Circuit c = testing::randomCircuit({.inputs = 6, .ops = 120, .outputs = 3}, rng);
        for (const CpuMode &mode : kCpuModes) {
            INFO(semiringName(mode.semiring) << " " << numericName(mode.numeric));
            const CpuOptions options = loopOptions(c, mode);
            auto forwardOnly = BatchedLoop::build(c, options);
            auto loop = BatchedLoop::build(c, options, /*keepValues=*/true);
            REQUIRE(loop.ok());
            REQUIRE(forwardOnly.ok());
            const size_t batch = 37, n = c.numInputs();
            const std::vector<double> x = testing::randomInputs(rng, batch * n);
            std::vector<double> adj(batch * n, std::numeric_limits<double>::quiet_NaN());
            CHECK_FALSE(forwardOnly->adjoints(x, 0, adj, batch).ok()); // built without it
            CHECK_FALSE(loop->adjoints(x, c.numOutputs(), adj, batch).ok());
            for (size_t o = 0; o < c.numOutputs(); ++o) {
                REQUIRE(loop->adjoints(x, o, adj, batch).ok());
                for (size_t s = 0; s < batch; ++s) {
                    auto ref =
                        evaluate(c, std::span(x.data() + s * n, n), mode.semiring, mode.numeric);
                    REQUIRE(ref.ok());
                    const std::vector<double> want = inputAdjoints(c, *ref, o);
                    for (size_t i = 0; i < n; ++i) {
                        INFO("adjoint of x[" << i << "], sample " << s << ", output " << o);
                        CHECK(close(adj[s * n + i], want[i]));
                    }
                }
            }
        }
    }
}
