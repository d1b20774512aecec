// Every benchmark network (tests/data: bn.tar.xz) compiles into a junction tree that the
// verifier accepts, under every heuristic and the order search; its sizes agree with the
// elimination simulation, and the search is never worse than min-fill.
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/junction_tree_stats.h"
#include "compiler/junction_tree/moral_graph.h"
#include "compiler/junction_tree/order_search.h"
#include "compiler/junction_tree/verify_junction_tree.h"

#include "tests/catch.hpp"
#include "tests/support/jt_testing.h"

using namespace zbddc;
using namespace zbddc::testing;

TEST_CASE("jt: every benchmark network's junction tree verifies", "[jt][networks]") {
    const auto dir = benchmarkNetworks();
    REQUIRE(std::filesystem::exists(dir));
    size_t networks = 0;
    for (const auto &entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".bif")
            continue;
        ++networks;
        INFO(entry.path());
        auto net = readNetworkFile(entry.path().string());
        REQUIRE(net.ok());
        const auto families = familyScopes(*net);
        const InteractionGraph g = moralGraph(*net);
        double minFill = 0;
        for (OrderHeuristic h : {OrderHeuristic::MinFill, OrderHeuristic::WeightedMinFill,
                                 OrderHeuristic::MinWeight, OrderHeuristic::MinDegree}) {
            INFO(orderHeuristicName(h));
            const auto order = greedyOrder(g, h);
            auto jt = buildJunctionTree(*net, order, /*verify=*/false);
            REQUIRE(jt.ok());
            const Status ok = verifyJunctionTree(*jt, families);
            INFO((ok ? "" : ok.error().message));
            CHECK(ok.ok());
            const JunctionTreeStats st = junctionTreeStats(*jt);
            const OrderStats os = analyzeOrder(g, order);
            CHECK(st.totalCliqueEntries == os.totalCliqueEntries);
            CHECK(st.cliques == os.cliques);
            CHECK(st.inducedWidth == os.inducedWidth);
            CHECK(st.largestCliqueEntries == os.largestBucketEntries);
            if (h == OrderHeuristic::MinFill)
                minFill = st.totalCliqueEntries;
        }
        OrderSearchOptions options;
        options.maxRuns = 12;
        options.timeLimitMs = 1e9; // the runs bound it, so the test is deterministic
        const OrderSearchResult r = searchOrder(g, options);
        CHECK(r.runs == options.maxRuns);
        CHECK(r.stats.totalCliqueEntries <= minFill);
        auto jt = buildJunctionTree(*net, r.order, /*verify=*/false);
        REQUIRE(jt.ok());
        CHECK(verifyJunctionTree(*jt, families).ok());
        CHECK(junctionTreeStats(*jt).totalCliqueEntries == r.stats.totalCliqueEntries);
    }
    CHECK(networks > 0);
}
