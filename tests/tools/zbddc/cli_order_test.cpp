// `zbddc run X.wcsp --order FILE / --heuristic NAME`: the flags reach the solver (the reported
// induced width is the order's, checked against analyzeOrder), every order gives the optimum that
// the reference interpreter computes, and bad order files fail with one `file:line:` line.
#include "compiler/elimination/elimination_order.h"
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "runtime/bucket_elimination/solve_be.h"

#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"

#include <filesystem>
#include <fstream>
#include <numeric>
#include <regex>

using namespace zbddc;
using zbddc::testing::runZbddc;

namespace {
// "key": number from the run's one JSON line.
double jsonField(const std::string &json, const std::string &key) {
    std::smatch m;
    REQUIRE(std::regex_search(json, m, std::regex("\"" + key + "\": ([0-9.e+-]+)")));
    return std::stod(m[1]);
}

uint32_t widthOf(const CostNetwork &net, const std::vector<uint32_t> &order) {
    std::vector<std::vector<uint32_t>> scopes;
    for (const auto &f : net.functions)
        scopes.push_back(f.scope);
    return analyzeOrder(buildInteractionGraph(net.domainSizes, scopes), order).inducedWidth;
}
} // namespace

TEST_CASE("run --order and --heuristic choose the elimination order", "[cli]") {
    const std::string path = std::string(ZBDDC_BENCHMARKS_DIR) + "/wcsp/example.wcsp";
    REQUIRE(std::filesystem::exists(path));
    auto net = readCostNetworkFile(path);
    REQUIRE(net.ok());
    BeOptions ref;
    ref.executor = "reference";
    auto oracle = solveBucketElimination(*net, ref);
    REQUIRE(oracle.ok());

    std::vector<std::vector<uint32_t>> scopes;
    for (const auto &f : net->functions)
        scopes.push_back(f.scope);
    const InteractionGraph graph = buildInteractionGraph(net->domainSizes, scopes);
    for (const char *h : {"min-fill", "min-degree", "weighted-min-fill"}) {
        const auto r = runZbddc("run '" + path + "' --task mpe --device cpu --json --heuristic " + h);
        INFO(h << ": " << r.err);
        REQUIRE(r.exitCode == 0);
        CHECK(jsonField(r.out, "cost") == oracle->cost);
        CHECK(jsonField(r.out, "induced_width") ==
              analyzeOrder(graph, greedyOrder(graph, *parseOrderHeuristic(h))).inducedWidth);
    }

    // A given order: the reverse of the variables' order, whatever its width.
    std::vector<uint32_t> order(net->numVariables());
    std::iota(order.rbegin(), order.rend(), 0u);
    const std::string file = testing::scratchDir() + "/reverse.order";
    {
        std::ofstream out(file);
        for (uint32_t v : order)
            out << v << "\n";
    }
    const auto r = runZbddc("run '" + path + "' --task mpe --device cpu --json --order " + file);
    INFO(r.err);
    REQUIRE(r.exitCode == 0);
    CHECK(jsonField(r.out, "cost") == oracle->cost);
    CHECK(jsonField(r.out, "induced_width") == widthOf(*net, order));

    SECTION("bad order files and heuristics fail with one line") {
        const std::string bad = testing::scratchDir() + "/bad.order";
        std::ofstream(bad) << "0 1\n1\n";
        const auto b = runZbddc("run '" + path + "' --task mpe --order " + bad);
        CHECK(b.exitCode == 1);
        CHECK(b.err.find(bad + ":2:") == 0);
        CHECK(std::count(b.err.begin(), b.err.end(), '\n') == 1);
        const auto h = runZbddc("run '" + path + "' --task mpe --heuristic max-fill");
        CHECK(h.exitCode == 2);
    }
}
