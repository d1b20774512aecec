// `zbddc stats NET --route jt [--json]`: the figures are those of the library on the same order
// (checked against brute force in junction_tree_test.cpp); --order and --heuristic behave as on
// the elimination route; bad uses are exit 2 and bad files one `file:line:` line.
#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/junction_tree_stats.h"
#include "compiler/junction_tree/moral_graph.h"

#include "tests/catch.hpp"
#include "tests/support/jt_testing.h"
#include "tests/support/run_zbddc.h"

#include <regex>

using namespace zbddc;
using namespace zbddc::testing;

namespace {

double jsonValue(const std::string &json, const std::string &key) {
    std::smatch m;
    REQUIRE(std::regex_search(json, m, std::regex("\"" + key + "\":([0-9.e+-]+)")));
    return std::stod(m[1]);
}

void checkAgainstLibrary(const std::string &json, const JunctionTree &jt) {
    const JunctionTreeStats st = junctionTreeStats(jt);
    CHECK(jsonValue(json, "variables") == st.variables);
    CHECK(jsonValue(json, "factors") == st.factors);
    CHECK(jsonValue(json, "cliques") == st.cliques);
    CHECK(jsonValue(json, "largest_clique_variables") == st.largestCliqueVariables);
    CHECK(jsonValue(json, "largest_clique_entries") == Approx(st.largestCliqueEntries));
    CHECK(jsonValue(json, "total_clique_entries") == Approx(st.totalCliqueEntries));
    CHECK(jsonValue(json, "largest_separator_entries") == Approx(st.largestSeparatorEntries));
    CHECK(jsonValue(json, "total_separator_entries") == Approx(st.totalSeparatorEntries));
    CHECK(jsonValue(json, "induced_width") == st.inducedWidth);
    CHECK(jsonValue(json, "depth") == st.height);
    CHECK(jsonValue(json, "message_levels") == 2 * st.height);
    CHECK(jsonValue(json, "time_ms") >= 0);
}

// A small network with two v-structures, so moralisation adds edges: a → c ← b, c → d, c → e ← d.
const char *kNetworkText = R"(network small { }
variable a { type discrete [ 2 ] { y, n }; }
variable b { type discrete [ 3 ] { x, y, z }; }
variable c { type discrete [ 2 ] { y, n }; }
variable d { type discrete [ 4 ] { p, q, r, s }; }
variable e { type discrete [ 2 ] { y, n }; }
probability ( a ) { table 0.3, 0.7; }
probability ( b ) { table 0.2, 0.3, 0.5; }
probability ( c | a, b ) { default 0.4, 0.6; }
probability ( d | c ) { default 0.1, 0.2, 0.3, 0.4; }
probability ( e | c, d ) { default 0.5, 0.5; }
)";
std::string networkFile() {
    return writeScratch("small.bif", kNetworkText);
}

} // namespace

TEST_CASE("stats --route jt reports the library's junction tree", "[jt][cli]") {
    const std::string network = networkFile();
    auto net = readNetworkFile(network);
    REQUIRE(net.ok());
    for (const char *h : {"min-fill", "min-degree", "weighted-min-fill", "min-weight"}) {
        const auto r = runZbddc("stats '" + network + "' --route jt --json --heuristic " + h);
        INFO(h << ": " << r.err);
        REQUIRE(r.exitCode == 0);
        CHECK(r.out.find("\"route\":\"junction-tree\"") != std::string::npos);
        CHECK(r.out.find("\"heuristic\":\"" + std::string(h) + "\"") != std::string::npos);
        auto jt = buildJunctionTree(*net, greedyOrder(moralGraph(*net), *parseOrderHeuristic(h)));
        REQUIRE(jt.ok());
        checkAgainstLibrary(r.out, *jt);
    }
    const auto text = runZbddc("stats '" + network + "' --route jt");
    REQUIRE(text.exitCode == 0);
    CHECK(text.out.find("route: junction tree\nheuristic: search (best: ") == 0); // the default
    CHECK(text.out.find("\ncliques: ") != std::string::npos);

    const auto search = runZbddc("stats '" + network + "' --route jt --json --heuristic search");
    REQUIRE(search.exitCode == 0);
    CHECK(jsonValue(search.out, "search_runs") >= 4);
    CHECK(search.out.find("\"search_best\":") != std::string::npos);
    const auto minFill =
        runZbddc("stats '" + network + "' --route jt --json --heuristic min-fill");
    CHECK(jsonValue(search.out, "total_clique_entries") <=
          jsonValue(minFill.out, "total_clique_entries"));
}

TEST_CASE("stats --route jt --order FILE uses that order", "[jt][cli]") {
    const std::string network = networkFile();
    auto net = readNetworkFile(network);
    REQUIRE(net.ok());
    const std::vector<uint32_t> order{4, 3, 2, 1, 0};
    const std::string file = writeScratch("small.order", "# reversed\n4 3\n2 1 0\n");
    const auto r = runZbddc("stats '" + network + "' --route jt --json --order '" + file + "'");
    INFO(r.err);
    REQUIRE(r.exitCode == 0);
    CHECK(r.out.find("\"heuristic\":\"given\"") != std::string::npos);
    auto jt = buildJunctionTree(*net, order);
    REQUIRE(jt.ok());
    checkAgainstLibrary(r.out, *jt);

    const std::string bad = writeScratch("bad.order", "4 3\n2 1 1\n");
    const auto e = runZbddc("stats '" + network + "' --route jt --order '" + bad + "'");
    CHECK(e.exitCode == 1);
    CHECK(e.err.find(bad + ":2: variable 1 appears twice in the order") != std::string::npos);
}

TEST_CASE("stats --route jt: usage errors", "[jt][cli]") {
    const std::string network = networkFile();
    const std::string zdd = ZBDDC_SOURCE_DIR "/examples/wetgrass.zdd";
    CHECK(runZbddc("stats '" + zdd + "' --route jt").exitCode == 2);
    CHECK(runZbddc("stats '" + network + "' --route mlf").exitCode == 2);
    CHECK(runZbddc("stats '" + network + "' --route jt --heuristic nope").exitCode == 2);
    const std::string wcsp = writeScratch("tiny.wcsp", "tiny 2 2 1 10\n2 2\n2 0 1 0 1\n1 1 5\n");
    CHECK(runZbddc("stats '" + wcsp + "' --heuristic search").exitCode == 2);
    // A cost network takes the junction-tree route too, its functions as the factors.
    const auto r = runZbddc("stats '" + wcsp + "' --route jt --json");
    INFO(r.err);
    CHECK(r.exitCode == 0);
    CHECK(jsonValue(r.out, "cliques") == 1);
    // Without --route, a network's stats are the MLF route's, as before.
    const auto mlf = runZbddc("stats '" + network + "'");
    CHECK(mlf.exitCode == 0);
    CHECK(mlf.out.find("route:") == std::string::npos);
    CHECK(mlf.out.find("nodes: ") == 0);
}
