#include "random_networks.h"
#include "runtime/bucket_elimination/solve_be.h"

#include "tests/catch.hpp"

using namespace zbddc;
using zbddc::testing::bruteForceOptimum;
using zbddc::testing::randomNetwork;

TEST_CASE("solver: optimum and assignment match brute force for every heuristic and executor",
          "[solve]") {
    std::mt19937 rng(3);
    for (int trial = 0; trial < 40; ++trial) {
        const CostNetwork net =
            randomNetwork(rng, 3 + rng() % 6, 2 + rng() % 9, 4, 3, 30, trial % 2);
        const Cost bf = bruteForceOptimum(net);
        for (OrderHeuristic h :
             {OrderHeuristic::MinDegree, OrderHeuristic::MinFill, OrderHeuristic::WeightedMinFill})
            for (const char *e : {"cpu", "reference"}) {
                BeOptions o;
                o.heuristic = h;
                o.executor = e;
                o.execution.threads = 2;
                auto sol = solveBucketElimination(net, o);
                REQUIRE(sol.ok());
                CHECK(sol->feasible == (bf != kForbidden));
                CHECK(sol->cost == bf);
                if (sol->feasible)
                    CHECK(assignmentCost(net, sol->assignment) == bf);
            }
    }
}

TEST_CASE("solver: MPE of a small Markov network (real-valued costs)", "[solve]") {
    std::mt19937 rng(9);
    for (int trial = 0; trial < 10; ++trial) {
        CostNetwork net = randomNetwork(rng, 5, 6, 3, 3, 1000, false);
        net.integerCosts = false;
        for (auto &f : net.functions)
            for (auto &c : f.costs)
                c = c / 7.0 + 0.125; // non-integers
        auto sol = solveBucketElimination(net, {});
        REQUIRE(sol.ok());
        CHECK(sol->cost == Approx(bruteForceOptimum(net)));
    }
}

TEST_CASE("solver: a given order, evidence, and the size limit before allocation", "[solve]") {
    std::mt19937 rng(1);
    const CostNetwork net = randomNetwork(rng, 6, 8, 3, 3, 30, false);
    BeOptions o;
    o.order = {5, 4, 3, 2, 1, 0};
    o.evidence.assign(6, UINT32_MAX);
    o.evidence[2] = 0;
    auto sol = solveBucketElimination(net, o);
    REQUIRE(sol.ok());
    CHECK(sol->cost == bruteForceOptimum(net, o.evidence));
    CHECK(sol->assignment[2] == 0);
    CHECK(sol->stats.heuristic == "given");

    o.order = {5, 4, 3};
    CHECK(solveBucketElimination(net, o).error().message == "order misses variable 0");

    CostNetwork clique; // all pairs of 6 variables of domain 10: a message of 10^5 entries
    clique.domainSizes.assign(6, 10);
    for (uint32_t u = 0; u < 6; ++u)
        for (uint32_t v = u + 1; v < 6; ++v) {
            CostFunction f;
            f.scope = {u, v};
            f.costs.assign(100, 1);
            clique.functions.push_back(f);
        }
    BeOptions small;
    small.maxTotalEntries = 1e4;
    auto refused = solveBucketElimination(clique, small);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message.find("beyond the limit of 10^4.0") != std::string::npos);
}
