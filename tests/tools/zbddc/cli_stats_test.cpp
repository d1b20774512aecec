// `zbddc stats X.wcsp|MARKOV.uai [--json]`: the elimination route's shape, printed before any
// table is allocated; the numbers are those of eliminationStats (itself checked against the built
// program in elimination_stats_test.cpp), and bad input is one `file:line:` line.
#include "compiler/elimination/elimination_stats.h"
#include "compiler/frontends/wcsp/read_cost_network.h"

#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"

#include <filesystem>
#include <regex>

using namespace zbddc;
using zbddc::testing::runZbddc;

namespace {
double jsonValue(const std::string &json, const std::string &key) {
    std::smatch m;
    REQUIRE(std::regex_search(json, m, std::regex("\"" + key + "\":([0-9.e+-]+)")));
    return std::stod(m[1]);
}

void checkStats(const std::string &path, const std::string &heuristic) {
    auto net = readCostNetworkFile(path);
    REQUIRE(net.ok());
    const auto order = greedyOrder(buildInteractionGraph(net->domainSizes, functionScopes(*net)),
                                   *parseOrderHeuristic(heuristic));
    auto st = eliminationStats(*net, order, heuristic);
    REQUIRE(st.ok());
    const auto r = runZbddc("stats '" + path + "' --json --heuristic " + heuristic);
    INFO(path << " " << r.err);
    REQUIRE(r.exitCode == 0);
    CHECK(r.out.find("\"heuristic\":\"" + heuristic + "\"") != std::string::npos);
    CHECK(jsonValue(r.out, "variables") == net->numVariables());
    CHECK(jsonValue(r.out, "functions") == net->functions.size());
    CHECK(jsonValue(r.out, "induced_width") == st->order.inducedWidth);
    CHECK(jsonValue(r.out, "largest_table_entries") ==
          Approx(st->order.largestMessageEntries).epsilon(1e-15));
    CHECK(jsonValue(r.out, "largest_table_bytes") ==
          Approx(8 * st->order.largestMessageEntries).epsilon(1e-15));
    CHECK(jsonValue(r.out, "total_table_entries") ==
          Approx(st->order.totalMessageEntries).epsilon(1e-15));
    CHECK(jsonValue(r.out, "levels") == st->levels);
    CHECK(jsonValue(r.out, "buckets") == st->buckets);
    const auto text = runZbddc("stats '" + path + "' --heuristic " + heuristic);
    REQUIRE(text.exitCode == 0);
    CHECK(text.out.find("induced_width: " + std::to_string(st->order.inducedWidth) + "\n") !=
          std::string::npos);
    CHECK(text.out.find("levels: " + std::to_string(st->levels) + "\n") != std::string::npos);
}
} // namespace

TEST_CASE("zbddc stats of a WCSP reports what bucket elimination needs", "[cli][stats]") {
    const std::string dir = std::string(ZBDDC_BENCHMARKS_DIR) + "/wcsp/";
    REQUIRE(std::filesystem::exists(dir + "404.wcsp"));
    for (const char *name : {"404.wcsp", "example.wcsp", "zebra.wcsp"})
        for (const char *h : {"min-fill", "min-degree"})
            checkStats(dir + name, h);
}

TEST_CASE("zbddc stats of a MARKOV .uai takes the elimination route", "[cli][stats]") {
    // A 3-variable chain X0 - X1 - X2: width 1; min-fill eliminates an end first, so the three
    // buckets run one after another (the last one's message is the scalar optimum), and every
    // message has two entries or fewer.
    const std::string path = testing::writeScratch(
        "chain.uai", "MARKOV\n3\n2 2 2\n2\n2 0 1\n2 1 2\n4 1 2 3 4\n4 4 3 2 1\n");
    checkStats(path, "min-fill");
    const auto r = runZbddc("stats '" + path + "' --json");
    REQUIRE(r.exitCode == 0);
    CHECK(jsonValue(r.out, "induced_width") == 1);
    CHECK(jsonValue(r.out, "levels") == 3);
    CHECK(jsonValue(r.out, "largest_table_entries") == 2);
}

TEST_CASE("zbddc stats of a bad WCSP is one line", "[cli][stats]") {
    const std::string path = testing::writeScratch("bad.wcsp", "bad 2 2 1 10\n2 2\n2 0 1 0 5\n");
    const auto r = runZbddc("stats '" + path + "'");
    CHECK(r.exitCode == 1);
    CHECK(r.err.rfind(path + ":", 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    const std::string order = testing::writeScratch("short.order", "0\n");
    const std::string good =
        testing::writeScratch("good.wcsp", "good 2 2 1 10\n2 2\n2 0 1 0 1\n0 0 3\n");
    const auto o = runZbddc("stats '" + good + "' --order " + order);
    CHECK(o.exitCode == 1);
    CHECK(o.err.rfind(order + ":", 0) == 0);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
}
