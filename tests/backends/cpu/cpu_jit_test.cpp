#include "backends/cpu/cpu_model.h"
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

constexpr double kPoison = std::numeric_limits<double>::quiet_NaN();

// Compiles with the given options and checks every output and every output's adjoints of a batch
// against the reference evaluator.
void checkAgainstReference(const Circuit &c, CpuOptions options, std::mt19937 &rng) {
    for (const CpuMode &mode : kCpuModes) {
        INFO("semiring " << semiringName(mode.semiring) << ", " << numericName(mode.numeric)
                         << ", opsPerFunction " << options.opsPerFunction << ", O"
                         << options.optLevel);
        options.semiring = mode.semiring;
        options.numeric = mode.numeric;
        auto model = compileCpu(c, options);
        REQUIRE(model.ok());
        const size_t batch = 5, n = c.numInputs(), m = c.numOutputs();
        const std::vector<double> x = testing::randomInputs(rng, batch * n);
        std::vector<double> out(batch * m, kPoison), adj(batch * n, kPoison);
        REQUIRE(model->evaluate(x, out, batch).ok());
        for (size_t s = 0; s < batch; ++s) {
            const std::span<const double> row(x.data() + s * n, n);
            auto ref = evaluate(c, row, mode.semiring, mode.numeric);
            REQUIRE(ref.ok());
            for (size_t o = 0; o < m; ++o) {
                INFO("sample " << s << " output " << o);
                CHECK(close(out[s * m + o], ref->values[c.outputs[o]]));
            }
        }
        for (size_t o = 0; o < m; ++o) {
            std::fill(adj.begin(), adj.end(), kPoison);
            REQUIRE(model->adjoints(x, o, adj, batch).ok());
            for (size_t s = 0; s < batch; ++s) {
                auto ref = evaluate(c, std::span(x.data() + s * n, n), mode.semiring, mode.numeric);
                const std::vector<double> want = inputAdjoints(c, *ref, o);
                for (size_t i = 0; i < n; ++i) {
                    INFO("adjoint of x[" << i << "], sample " << s << ", output " << o);
                    CHECK(close(adj[s * n + i], want[i]));
                }
            }
        }
    }
}

} // namespace

TEST_CASE("JIT forward and adjoints equal the reference evaluator in every semiring and numeric",
          "[cpu][jit]") {
    std::mt19937 rng(7);
    for (int round = 0; round < 3; ++round) {
        const Circuit c = testing::randomCircuit({.inputs = 6, .ops = 60, .outputs = 3}, rng);
        REQUIRE(verify(c).ok());
        CpuOptions options;
        options.threads = 2;
        options.opsPerFunction = 7; // many functions: values cross boundaries through slots
        SECTION("id order") { checkAgainstReference(c, options, rng); }
        SECTION("Minato et al. 2011 DFS order") {
            options.order = dfsOrder(c).order;
            checkAgainstReference(c, options, rng);
        }
        SECTION("data-driven loop (CpuOptions::dataDriven), no machine code") {
            options.dataDriven = true;
            options.order = dfsOrder(c).order;
            checkAgainstReference(c, options, rng);
        }
        SECTION("one function, O2") {
            options.opsPerFunction = 1000;
            options.optLevel = 2;
            options.order = dfsOrder(c).order;
            checkAgainstReference(c, options, rng);
        }
    }
}

TEST_CASE("large batches split over threads give the same values as one sample at a time",
          "[cpu][jit]") {
    std::mt19937 rng(11);
    const Circuit c = testing::randomCircuit({.inputs = 5, .ops = 200, .outputs = 2}, rng);
    CpuOptions options;
    options.threads = 4;
    options.backward = false;
    auto model = compileCpu(c, options);
    REQUIRE(model.ok());
    const size_t batch = 3000; // enough work for several threads
    const std::vector<double> x = testing::randomInputs(rng, batch * c.numInputs());
    std::vector<double> out(batch * c.numOutputs(), kPoison);
    REQUIRE(model->evaluate(x, out, batch).ok());
    for (size_t s = 0; s < batch; s += 97) {
        auto ref = evaluate(c, std::span(x.data() + s * 5, 5), c.semiring);
        for (size_t o = 0; o < c.numOutputs(); ++o) {
            INFO(out[s * c.numOutputs() + o] << " vs " << ref->values[c.outputs[o]]);
            CHECK(close(out[s * c.numOutputs() + o], ref->values[c.outputs[o]]));
        }
    }
    std::vector<double> adj(batch * c.numInputs());
    CHECK_FALSE(model->adjoints(x, 0, adj, batch).ok()); // compiled without the backward pass
}

TEST_CASE("compileCpu refuses what it cannot compile, with a message", "[cpu][jit]") {
    std::mt19937 rng(3);
    const Circuit c = testing::randomCircuit({.inputs = 3, .ops = 20, .outputs = 1}, rng);
    CpuOptions options;
    options.semiring = Semiring::MaxSum;
    options.numeric = Numeric::Log;
    auto logMaxSum = compileCpu(c, options);
    REQUIRE_FALSE(logMaxSum.ok());
    CHECK(logMaxSum.error().message.find("log space") != std::string::npos);

    CpuOptions reversed;
    for (NodeId id = static_cast<NodeId>(c.numNodes()); id-- > 0;)
        reversed.order.push_back(id);
    auto bad = compileCpu(c, reversed);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message.find("before its operand") != std::string::npos);

    auto model = compileCpu(c);
    REQUIRE(model.ok());
    std::vector<double> x(2), out(1);
    CHECK_FALSE(model->evaluate(x, out, 1).ok()); // wrong input count
}
