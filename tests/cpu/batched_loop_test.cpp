#include "backends/cpu/batched_loop.h"
#include "backends/cpu/dfs_order.h"
#include "ir/interpret.h"
#include "random_circuit.h"

#include <limits>

using namespace zbddc;
using zbddc::test::close;
using zbddc::test::kModes;
using zbddc::test::Mode;

namespace {
// The loop's options for `mode`: 3 threads, Minato et al. 2011's DFS order.
CpuOptions loopOptions(const Circuit &c, const Mode &mode) {
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
        const Circuit c = test::randomCircuit(rng, 6, 120, 3);
        for (const Mode &mode : kModes) {
            INFO(semiringName(mode.semiring) << " " << numericName(mode.numeric));
            const CpuOptions options = loopOptions(c, mode);
            auto loop = BatchedLoop::build(c, options);
            REQUIRE(loop.ok());
            CHECK(loop->numSlots() < c.numNodes()); // liveness reuses slots
            const size_t batch = 37; // not a multiple of the lane count
            const size_t n = c.numInputs(), m = c.numOutputs();
            const std::vector<double> x = test::randomInputs(rng, batch * n);
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
        const Circuit c = test::randomCircuit(rng, 6, 120, 3);
        for (const Mode &mode : kModes) {
            INFO(semiringName(mode.semiring) << " " << numericName(mode.numeric));
            const CpuOptions options = loopOptions(c, mode);
            auto forwardOnly = BatchedLoop::build(c, options);
            auto loop = BatchedLoop::build(c, options, /*keepValues=*/true);
            REQUIRE(loop.ok());
            REQUIRE(forwardOnly.ok());
            const size_t batch = 37, n = c.numInputs();
            const std::vector<double> x = test::randomInputs(rng, batch * n);
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
