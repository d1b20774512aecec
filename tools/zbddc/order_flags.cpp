#include "tools/zbddc/order_flags.h"
#include "compiler/elimination/order_file.h"

#include "support/timer.h"

#include <CLI/CLI.hpp>

namespace zbddc {

void OrderFlags::addTo(CLI::App &app, const std::string &scope,
                       const std::vector<std::string> &extra) {
    std::vector<std::string> names = {"min-fill", "min-degree", "weighted-min-fill", "min-weight"};
    names.insert(names.end(), extra.begin(), extra.end());
    std::string list;
    for (size_t i = 0; i < names.size(); ++i)
        list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    app.add_option("--order", orderFile,
                   scope + " elimination order file: variable indices, first eliminated first");
    app.add_option("--heuristic", heuristic, scope + " elimination order heuristic: " + list)
        ->check(CLI::IsMember(names));
}

Result<ChosenOrder> chooseOrder(const std::vector<uint32_t> &domains,
                                const std::vector<std::vector<uint32_t>> &scopes,
                                const OrderFlags &flags, const std::string &routeDefault,
                                double searchMs) {
    const SteadyTime t0 = std::chrono::steady_clock::now();
    ChosenOrder chosen;
    chosen.heuristic = flags.heuristicOr(routeDefault);
    chosen.searchOptions.timeLimitMs = searchMs;
    if (!flags.orderFile.empty()) {
        auto given = readOrderFile(flags.orderFile, domains.size());
        if (!given)
            return given.error();
        chosen.order = std::move(*given);
        chosen.heuristic = "given";
    } else {
        const InteractionGraph graph = buildInteractionGraph(domains, scopes);
        if (chosen.heuristic == "search") {
            chosen.search = searchOrder(graph, chosen.searchOptions);
            chosen.order = chosen.search.order;
        } else { // the command line checked the name
            chosen.order = greedyOrder(graph, *parseOrderHeuristic(chosen.heuristic));
        }
    }
    chosen.timeMs = msSince(t0);
    return chosen;
}

} // namespace zbddc
