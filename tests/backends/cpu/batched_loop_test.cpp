#include "backends/cpu/batched_loop.h"
#include "backends/cpu/dfs_order.h"
#include "ir/interpret.h"

#include "tests/catch.hpp"
#include "tests/support/close.h"
#include "tests/support/cpu_modes.h"
#include "tests/support/random_circuits.h"

#include <limits>
#include <thread>

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
            const size_t batch = 37;                // not a multiple of the lane count
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

TEST_CASE("the data-driven loop traces each vector's optimal term as the circuit's traceback does",
          "[cpu][batched][traceback]") {
    std::mt19937 rng(29);
    size_t traced = 0, walks = 0;
    for (uint32_t seed = 1; seed <= 6; ++seed)
        for (Semiring s : {Semiring::MaxProduct, Semiring::MaxSum, Semiring::MinSum}) {
            Circuit c = testing::randomZddCircuit({.vars = 16, .width = 5, .roots = 2}, seed);
            c.semiring = s;
            CpuOptions options;
            options.semiring = s;
            options.threads = 2;
            options.order = dfsOrder(c).order;
            auto loop = BatchedLoop::build(c, options, /*keepValues=*/true);
            REQUIRE(loop.ok());
            // Each input an indicator of a variable of its own.
            std::vector<uint32_t> indicator;
            for (uint32_t i = 0; i < c.numInputs(); ++i)
                indicator.insert(indicator.end(), {i, 0});
            const size_t batch = 21, n = c.numInputs(), vars = n;
            std::vector<double> x;
            for (size_t k = 0; k < batch; ++k) {
                const auto v = testing::randomInputs(n, seed * 100 + k, 0.2, 0.95);
                x.insert(x.end(), v.begin(), v.end());
            }
            std::vector<double> out(batch * c.numOutputs());
            std::vector<uint32_t> states(batch * vars);
            std::vector<uint8_t> ok(batch);
            REQUIRE(loop->traceback(x, 1, indicator, vars, out, states, ok, batch).ok());
            for (size_t k = 0; k < batch; ++k, ++walks) {
                INFO(semiringName(s) << " seed " << seed << " vector " << k);
                auto ref = evaluate(c, std::span(x.data() + k * n, n), s);
                REQUIRE(ref.ok());
                CHECK(close(out[k * c.numOutputs() + 1], ref->values[c.outputs[1]]));
                if (!ok[k])
                    continue;
                ++traced;
                std::vector<uint32_t> got;
                for (uint32_t v = 0; v < vars; ++v)
                    if (states[k * vars + v] != kNone)
                        got.push_back(v);
                CHECK(got == traceback(c, *ref, 1)); // random reals: one optimal term
            }
        }
    CHECK(traced == walks); // a ZBDD's term is a path: every walk ends

    // Two states of one variable on the term, and a term of 2^40 visits: both stop.
    Circuit c;
    c.semiring = Semiring::MaxProduct;
    c.variables.push_back({"v", {"a", "b"}});
    c.addInputInfo({InputKind::Indicator, 0, 0, 0.0, ""});
    c.addInputInfo({InputKind::Indicator, 0, 1, 0.0, ""});
    NodeId n = c.addInput(0);
    c.addOutput(c.addTimes(n, c.addInput(1)));
    for (int k = 0; k < 40; ++k)
        n = c.addTimes(n, n);
    c.addOutput(n);
    CpuOptions options;
    options.order = dfsOrder(c).order;
    auto loop = BatchedLoop::build(c, options, true);
    REQUIRE(loop.ok());
    const std::vector<uint32_t> indicator = {0, 0, 0, 1};
    const std::vector<double> x = {0.5, 0.5};
    std::vector<double> out(2);
    std::vector<uint32_t> states(1);
    std::vector<uint8_t> ok(1, 1);
    for (size_t output : {0, 1}) {
        REQUIRE(loop->traceback(x, output, indicator, 1, out, states, ok, 1).ok());
        CHECK(ok[0] == 0);
    }
}

TEST_CASE("the loop's kept tiles give the same answers call after call and on threads at once",
          "[cpu][batched]") {
    // The second and later calls run on tiles an earlier call wrote (kept_buffers.h), four of
    // them at the same time on one loop.
    std::mt19937 rng(31);
    const Circuit c = testing::randomCircuit({.inputs = 6, .ops = 200, .outputs = 2}, rng);
    const CpuMode mode = kCpuModes[0];
    auto loop = BatchedLoop::build(c, loopOptions(c, mode), /*keepValues=*/true);
    REQUIRE(loop.ok());
    const size_t batch = 45, n = c.numInputs();
    std::vector<std::vector<double>> xs, first;
    for (int call = 0; call < 4; ++call) {
        xs.push_back(testing::randomInputs(rng, batch * n));
        std::vector<double> adj(batch * n);
        REQUIRE(loop->adjoints(xs.back(), 1, adj, batch).ok());
        first.push_back(std::move(adj));
    }
    std::vector<std::vector<double>> again(4, std::vector<double>(batch * n));
    std::vector<std::thread> threads;
    std::vector<int> ok(4, 0);
    for (int call = 0; call < 4; ++call)
        threads.emplace_back(
            [&, call] { ok[call] = loop->adjoints(xs[call], 1, again[call], batch).ok() ? 1 : 0; });
    for (std::thread &t : threads)
        t.join();
    for (int call = 0; call < 4; ++call) {
        INFO("call " << call);
        CHECK(ok[call] == 1);
        CHECK(again[call] == first[call]);
    }
}

TEST_CASE("kept buffers are handed back out by size, up to their byte limit", "[cpu][batched]") {
    KeptBuffers kept(1000 * sizeof(double));
    std::unique_ptr<double[]> a = kept.take(600);
    double *const address = a.get();
    kept.give(std::move(a), 600);
    const std::unique_ptr<double[]> other = kept.take(500); // another size: a new buffer
    CHECK(other.get() != address);
    std::unique_ptr<double[]> again = kept.take(600);
    CHECK(again.get() == address);
    kept.give(std::move(again), 600);
    kept.give(std::make_unique<double[]>(600), 600); // past the limit: freed, not kept
    const std::unique_ptr<double[]> kept600 = kept.take(600);
    CHECK(kept600.get() == address);
    const std::unique_ptr<double[]> fresh = kept.take(600); // none kept now
    CHECK(fresh.get() != address);
}
