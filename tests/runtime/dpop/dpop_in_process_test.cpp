// DPOP on one process (every message delivered in place) against brute force and against
// centralised bucket elimination: the optimum, an assignment that costs it, and 2(N-1) messages
// for N agents; with one agent per variable, with agents owning several variables, with a given
// order, on disconnected networks and with forbidden tuples. The messages' wire form round-trips
// and a truncated one, or one whose table disagrees with its head, is refused.
#include "runtime/dpop/dpop_message.h"
#include "runtime/dpop/solve_dpop.h"

#include "tests/catch.hpp"
#include "tests/support/random_networks.h"

#include <random>

using namespace zbddc;

namespace {

void checkAgainstBruteForce(const CostNetwork &net, const DpopOptions &options, uint32_t agents) {
    auto run = solveDpopInProcess(net, options);
    INFO((run ? "" : run.error().str()));
    REQUIRE(run.ok());
    const Cost expected = testing::bruteForceOptimum(net);
    CHECK(run->solution.feasible == net.feasible(expected));
    if (run->solution.feasible) {
        CHECK(run->solution.cost == expected);
        CHECK(assignmentCost(net, run->solution.assignment) == expected);
    }
    CHECK(run->stats.agents == agents);
    CHECK(run->stats.utilMessages == agents - 1);
    CHECK(run->stats.valueMessages == agents - 1);
    CHECK(run->stats.agentComputeMs.size() == agents);
    // Sultanik et al. 2007: the simulated time is a chain of the agents' times, so it lies
    // between the largest one and their sum.
    double sum = 0, largest = 0;
    for (double ms : run->stats.agentComputeMs) {
        sum += ms;
        largest = std::max(largest, ms);
    }
    CHECK(run->stats.simulatedMs >= largest * (1 - 1e-9));
    CHECK(run->stats.simulatedMs <= sum * (1 + 1e-9));
}

} // namespace

TEST_CASE("DPOP with one agent per variable finds the brute-force optimum", "[dpop]") {
    std::mt19937 rng(11);
    for (int trial = 0; trial < 40; ++trial) {
        const uint32_t n = 1 + rng() % 7;
        // Nullary and disconnected functions included, some tables sparse, some tuples forbidden.
        const CostNetwork net =
            testing::randomNetwork(rng, n, rng() % 10, 3, 3, 20, trial % 3 == 0);
        INFO("trial " << trial);
        checkAgainstBruteForce(net, {}, n);
    }
}

TEST_CASE("DPOP with agents owning several variables finds the brute-force optimum", "[dpop]") {
    std::mt19937 rng(12);
    for (int trial = 0; trial < 30; ++trial) {
        const uint32_t n = 2 + rng() % 6;
        const CostNetwork net = testing::randomConnectedNetwork(rng, n, rng() % 6, 3, 3, 20, true);
        const uint32_t agents = 1 + rng() % n;
        DpopOptions options;
        options.agentOf.resize(n);
        for (uint32_t v = 0; v < n; ++v)
            options.agentOf[v] = v < agents ? v : rng() % agents;
        if (trial % 2) { // a given order: variables last to first
            for (uint32_t v = 0; v < n; ++v)
                options.order.push_back(n - 1 - v);
        }
        INFO("trial " << trial);
        checkAgainstBruteForce(net, options, agents);
    }
}

TEST_CASE("DPOP agrees with centralised bucket elimination on larger networks", "[dpop]") {
    std::mt19937 rng(13);
    for (int trial = 0; trial < 6; ++trial) {
        const CostNetwork net = testing::randomConnectedNetwork(rng, 30, 25, 4, 2, 100, false);
        auto dpop = solveDpopInProcess(net, {});
        auto be = solveBucketElimination(net, {});
        REQUIRE(dpop.ok());
        REQUIRE(be.ok());
        CHECK(dpop->solution.cost == be->cost);
        CHECK(assignmentCost(net, dpop->solution.assignment) == be->cost);
        CHECK(dpop->stats.utilMessages + dpop->stats.valueMessages == 2 * (30 - 1));
    }
}

TEST_CASE("DPOP messages round-trip through their wire form; a cut one is refused", "[dpop]") {
    DpopMessage util;
    util.from = 3;
    util.to = 1;
    util.clockMs = 2.5;
    util.scope = {4, 0};
    util.table = {1, 2, 3, 4, 5, 6};
    CHECK(dpopMessageBytes(util) == 32 + 2 * 4 + 6 * 8);
    const DpopWire wire = encodeDpopMessage(util);
    CHECK(wire.table == util.table); // the table travels as it is, beside the head
    CHECK(wire.head.size() + 8 * wire.table.size() == dpopMessageBytes(util));
    auto back = decodeDpopMessage(wire);
    REQUIRE(back.ok());
    CHECK(back->kind == DpopMessage::Kind::Util);
    CHECK(back->from == 3);
    CHECK(back->to == 1);
    CHECK(back->clockMs == 2.5);
    CHECK(back->scope == util.scope);
    CHECK(back->table == util.table);
    DpopWire cut = wire;
    cut.head.pop_back();
    CHECK(!decodeDpopMessage(cut).ok());
    cut.head.resize(8);
    CHECK(!decodeDpopMessage(cut).ok());
    DpopWire shortTable = wire;
    shortTable.table.pop_back();
    CHECK(!decodeDpopMessage(shortTable).ok());

    DpopMessage value;
    value.kind = DpopMessage::Kind::Value;
    value.scope = {7, 2};
    value.values = {1, 0};
    const DpopWire valueWire = encodeDpopMessage(value);
    CHECK(valueWire.table.empty());
    auto v = decodeDpopMessage(valueWire);
    REQUIRE(v.ok());
    CHECK(v->values == value.values);
    CHECK(v->table.empty());
    DpopWire withTable = valueWire;
    withTable.table = {1};
    CHECK(!decodeDpopMessage(withTable).ok());
}
