// eliminationStats predicts, from scopes alone, the shape of the program buildBucketProgram builds:
// checked against that program's own tables, ops and levels (computeLevels) on random networks.
#include "compiler/elimination/bucket_program.h"
#include "compiler/elimination/elimination_stats.h"

#include "tests/catch.hpp"
#include "tests/support/random_networks.h"

#include <algorithm>

using namespace zbddc;
using zbddc::testing::randomNetwork;

TEST_CASE("elimination stats equal the shape of the built bucket program", "[order][stats]") {
    std::mt19937 rng(17);
    for (int trial = 0; trial < 60; ++trial) {
        const CostNetwork net = randomNetwork(rng, 2 + rng() % 12, 1 + rng() % 14, 4, 4, 9, false);
        const auto graph = buildInteractionGraph(net.domainSizes, functionScopes(net));
        for (OrderHeuristic h : {OrderHeuristic::MinDegree, OrderHeuristic::MinFill}) {
            const auto order = greedyOrder(graph, h);
            auto st = eliminationStats(net, order, std::string(orderHeuristicName(h)));
            REQUIRE(st.ok());
            auto program = buildBucketProgram(net, order);
            REQUIRE(program.ok());
            CHECK(st->variables == net.numVariables());
            CHECK(st->functions == net.functions.size());
            CHECK(st->buckets == program->ops.size());
            CHECK(st->levels == program->levels.size());
            double largest = 0, total = 0, inputs = 0;
            for (const Table &t : program->tables) {
                const double e = static_cast<double>(t.entries());
                if (t.input)
                    inputs += e;
                else
                    largest = std::max(largest, e), total += e;
            }
            CHECK(st->inputEntries == inputs);
            CHECK(st->order.largestMessageEntries == std::max(largest, 1.0));
            // A variable with an empty bucket has no neighbours: its message is one entry that
            // the program never allocates.
            CHECK(st->order.totalMessageEntries ==
                  total + double(net.numVariables() - program->ops.size()));
        }
    }
}

TEST_CASE("elimination stats refuse an order that is not a permutation", "[order][stats]") {
    std::mt19937 rng(2);
    const CostNetwork net = randomNetwork(rng, 4, 3, 3, 2, 5, false);
    CHECK_FALSE(eliminationStats(net, {0, 1, 2}, "given").ok());
    CHECK_FALSE(eliminationStats(net, {0, 1, 2, 2}, "given").ok());
}
