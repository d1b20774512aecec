// The out-of-core host model on a real instance (slow: the model decodes every row): SPOT5 404's
// bucket program under a budget 4 times smaller than its largest table, table by table equal to
// the CPU executor.
#include "compiler/elimination/elimination_order.h"
#include "compiler/frontends/wcsp/read_cost_network.h"

#include "tests/catch.hpp"
#include "tests/support/host_out_of_core.h"

#include <filesystem>

using namespace zbddc;
using namespace zbddc::testing;

TEST_CASE("SPOT5 404 runs out of core with its largest table 4x the budget", "[wcsp][chunks]") {
    const std::string path = std::string(ZBDDC_BENCHMARKS_DIR) + "/wcsp/404.wcsp";
    REQUIRE(std::filesystem::exists(path));
    auto net = readCostNetworkFile(path);
    REQUIRE(net.ok());
    std::vector<std::vector<uint32_t>> scopes;
    for (const auto &f : net->functions)
        scopes.push_back(f.scope);
    const auto order =
        greedyOrder(buildInteractionGraph(net->domainSizes, scopes), OrderHeuristic::MinFill);
    hostOutOfCoreOptimum({*net, order}, 4);
}
