#include "compiler/frontends/zdd/zdd_lower.h"
#include "ir/circuit_stats.h"
#include "ir/interpret.h"

#include "tests/catch.hpp"
#include "tests/support/zdd_testing.h"

#include <functional>

using namespace zbddc;

// Longest chain of non-terminal nodes below a ZBDD node, counted by plain recursion.
static uint64_t zddDepth(const ZddModel &m, uint32_t id) {
    if (id <= kZddBase)
        return 0;
    const ZddNode &n = m.node(id);
    return 1 + std::max(zddDepth(m, n.lo), zddDepth(m, n.hi));
}

TEST_CASE("the lowered circuit evaluates the MLF term by term", "[zdd][lower]") {
    std::mt19937 rng(42);
    std::uniform_real_distribution<double> u(0.0, 1.5);
    for (int trial = 0; trial < 60; ++trial) {
        const uint32_t vars = 1 + trial % 10;
        const ZddModel m = testing::randomZdd(rng, vars, 1 + trial % 30);
        const Circuit c = lowerZdd(m);
        REQUIRE(verify(c).ok());
        std::vector<double> x(vars);
        for (double &v : x)
            v = u(rng);
        auto e = evaluate(c, x, Semiring::SumProduct);
        REQUIRE(e.ok());
        CHECK(e->values[c.outputs[0]] == Approx(testing::bruteForceMlf(m, m.roots[0], x)));
    }
}

TEST_CASE("stats count typeA/typeB ops and levels as the ZBDD's longest path", "[zdd][lower]") {
    std::mt19937 rng(9);
    for (int trial = 0; trial < 40; ++trial) {
        const ZddModel m = testing::randomZdd(rng, 1 + trial % 8, 1 + trial % 25);
        // Count only nodes reachable from the root would differ; lowering keeps every node.
        uint64_t typeA = 0, typeB = 0, depth = 0;
        for (size_t i = 0; i < m.nodes.size(); ++i) {
            (m.nodes[i].lo == kZddEmpty ? typeB : typeA) += 1;
            depth = std::max(depth, zddDepth(m, ZddModel::idOf(i)));
        }
        const CircuitStats s = circuitStats(lowerZdd(m));
        CHECK(s.typeA == typeA);
        CHECK(s.typeB == typeB);
        CHECK(s.ops == m.nodes.size());
        CHECK(s.levels == depth);
    }
}

TEST_CASE("terminal roots lower to the semiring's constants", "[zdd][lower]") {
    ZddModel m;
    m.roots = {kZddEmpty, kZddBase};
    m.rootNames = {"zero", "one"};
    const Circuit c = lowerZdd(m);
    auto e = evaluate(c, std::vector<double>{}, Semiring::MaxSum);
    REQUIRE(e.ok());
    CHECK(e->values[c.outputs[0]] == -std::numeric_limits<double>::infinity());
    CHECK(e->values[c.outputs[1]] == 0.0);
}
