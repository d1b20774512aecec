#include "pipeline/order_choice.h"
#include "compiler/elimination/variable_files.h"

#include "support/timer.h"

namespace zbddc::pipeline {

const std::vector<std::string> &orderHeuristicNames() {
    static const std::vector<std::string> names = {"min-fill", "min-degree", "weighted-min-fill",
                                                   "min-weight", "search"};
    return names;
}

Result<ChosenOrder> chooseOrder(const std::vector<uint32_t> &domains,
                                const std::vector<std::vector<uint32_t>> &scopes,
                                const OrderOptions &options, const std::string &routeDefault) {
    const SteadyTime t0 = std::chrono::steady_clock::now();
    ChosenOrder chosen;
    chosen.heuristic = options.heuristicOr(routeDefault);
    chosen.searchOptions.timeLimitMs = options.searchMs;
    const double cases = static_cast<double>(options.expectedCases);
    chosen.searchOptions.msPerEntry = cases * kCpuMsPerCliqueEntry;
    chosen.searchOptions.msPerClique = cases * kCpuMsPerClique;
    if (!options.orderFile.empty()) {
        auto given = readOrderFile(options.orderFile, domains.size());
        if (!given)
            return given.error();
        chosen.order = std::move(*given);
        chosen.heuristic = "given";
    } else {
        const InteractionGraph graph = buildInteractionGraph(domains, scopes);
        if (chosen.heuristic == "search") {
            chosen.search = searchOrder(graph, chosen.searchOptions);
            chosen.order = chosen.search.order;
        } else {
            auto heuristic = parseOrderHeuristic(chosen.heuristic);
            if (!heuristic)
                return error("unknown order heuristic '" + chosen.heuristic + "'");
            chosen.order = greedyOrder(graph, *heuristic);
        }
    }
    chosen.timeMs = msSince(t0);
    return chosen;
}

} // namespace zbddc::pipeline
