#include "ir/interpret.h"

#include "tests/catch.hpp"

#include <cmath>
#include <random>

using namespace zbddc;

namespace {
// f = (x0·x1 + x2)·x3 + x0 built with shared sub-terms.
Circuit sampleCircuit() {
    Circuit c;
    for (int i = 0; i < 4; ++i)
        c.addInputInfo({});
    NodeId x[4];
    for (uint32_t i = 0; i < 4; ++i)
        x[i] = c.addInput(i);
    const NodeId t = c.addMulAdd(x[0], x[1], x[2]);
    c.addOutput(c.addMulAdd(t, x[3], x[0]));
    return c;
}
} // namespace

TEST_CASE("forward values match the hand-computed polynomial in every semiring", "[interpret]") {
    const Circuit c = sampleCircuit();
    const std::vector<double> x{0.5, 2.0, 3.0, 0.25};
    const double sp = (0.5 * 2.0 + 3.0) * 0.25 + 0.5;                           // 1.5
    const double mp = std::max(std::max(0.5 * 2.0, 3.0) * 0.25, 0.5);            // 0.75
    const double ms = std::max(std::max(0.5 + 2.0, 3.0) + 0.25, 0.5);            // 3.25
    const double mn = std::min(std::min(0.5 + 2.0, 3.0) + 0.25, 0.5);            // 0.5
    auto out = [&](Semiring s) { return evaluate(c, x, s)->values[c.outputs[0]]; };
    CHECK(out(Semiring::SumProduct) == Approx(sp));
    CHECK(out(Semiring::MaxProduct) == Approx(mp));
    CHECK(out(Semiring::MaxSum) == Approx(ms));
    CHECK(out(Semiring::MinSum) == Approx(mn));
}

TEST_CASE("log space agrees with float64 and survives underflow", "[interpret]") {
    const Circuit c = sampleCircuit();
    const std::vector<double> x{0.5, 2.0, 3.0, 0.25};
    auto lin = evaluate(c, x, Semiring::SumProduct);
    auto log = evaluate(c, x, Semiring::SumProduct, Numeric::Log);
    CHECK(std::exp(log->values[c.outputs[0]]) == Approx(lin->values[c.outputs[0]]));

    // A product of 400 factors 1e-3 is 1e-1200: zero in float64, exact in log space.
    Circuit chain;
    chain.addInputInfo({});
    NodeId x0 = chain.addInput(0), acc = chain.addOne();
    for (int i = 0; i < 400; ++i)
        acc = chain.addTimes(acc, x0);
    chain.addOutput(acc);
    const std::vector<double> tiny{1e-3};
    CHECK(evaluate(chain, tiny, Semiring::SumProduct)->values[acc] == 0.0);
    CHECK(evaluate(chain, tiny, Semiring::SumProduct, Numeric::Log)->values[acc] / std::log(10.0) ==
          Approx(-1200.0));
}

TEST_CASE("adjoints equal finite-difference derivatives (sum-product)", "[interpret]") {
    const Circuit c = sampleCircuit();
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(0.1, 2.0);
    for (int trial = 0; trial < 20; ++trial) {
        std::vector<double> x(4);
        for (double &v : x)
            v = u(rng);
        auto e = evaluate(c, x, Semiring::SumProduct);
        auto adj = inputAdjoints(c, *e, 0);
        for (size_t i = 0; i < 4; ++i) {
            std::vector<double> hi = x, lo = x;
            const double h = 1e-6;
            hi[i] += h;
            lo[i] -= h;
            const double fd = (evaluate(c, hi, Semiring::SumProduct)->values[c.outputs[0]] -
                               evaluate(c, lo, Semiring::SumProduct)->values[c.outputs[0]]) / (2 * h);
            CHECK(adj[i] == Approx(fd).epsilon(1e-6));
        }
        auto logAdj = inputAdjoints(c, *evaluate(c, x, Semiring::SumProduct, Numeric::Log), 0);
        for (size_t i = 0; i < 4; ++i)
            CHECK(std::exp(logAdj[i]) == Approx(adj[i]));
    }
}

TEST_CASE("max-product traceback finds the best term", "[interpret]") {
    // Terms of f: x0x1x3, x2x3, x0. With these values x2x3 = 0.75 wins.
    const Circuit c = sampleCircuit();
    const std::vector<double> x{0.5, 2.0, 3.0, 0.25};
    auto e = evaluate(c, x, Semiring::MaxProduct);
    CHECK(traceback(c, *e, 0) == std::vector<uint32_t>{2, 3});
    // With x0 large the single-variable term x0 wins.
    const std::vector<double> y{5.0, 0.1, 0.1, 0.1};
    CHECK(traceback(c, *evaluate(c, y, Semiring::MaxProduct), 0) == std::vector<uint32_t>{0});
    // Min-sum picks the cheapest term: x0 = 0.5 against x2+x3 = 3.25.
    CHECK(traceback(c, *evaluate(c, x, Semiring::MinSum), 0) == std::vector<uint32_t>{0});
}

TEST_CASE("max-product adjoints are the best completions through each input", "[interpret]") {
    const Circuit c = sampleCircuit();
    const std::vector<double> x{0.5, 2.0, 3.0, 0.25};
    auto adj = inputAdjoints(c, *evaluate(c, x, Semiring::MaxProduct), 0);
    // Best term containing x0, with x0 removed: max(x1·x3, 1) = 1.
    CHECK(adj[0] == Approx(1.0));
    CHECK(adj[1] == Approx(0.5 * 0.25)); // x0·x3
    CHECK(adj[3] == Approx(3.0));        // max(x0·x1, x2)
}

TEST_CASE("evaluation rejects wrong input counts and log space for additive semirings", "[interpret]") {
    const Circuit c = sampleCircuit();
    CHECK_FALSE(evaluate(c, std::vector<double>{1.0}, Semiring::SumProduct).ok());
    CHECK_FALSE(evaluate(c, std::vector<double>(4, 1.0), Semiring::MaxSum, Numeric::Log).ok());
}
