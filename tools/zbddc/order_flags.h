// `--order FILE` and `--heuristic NAME`: the elimination order flags that run, compile and stats
// share for the bucket-elimination and junction-tree routes (docs/cli.md).
#pragma once

#include "compiler/junction_tree/order_search.h"
#include "ir/result.h"

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace zbddc {

struct OrderFlags {
    std::string orderFile;
    std::string heuristic; // "": the route's own default (min-fill; search for junction trees)

    // Registers both options on `app`; `scope` starts their help, e.g. "(.wcsp)". `extra` names
    // heuristics a command accepts beyond greedyOrder's (stats: "search", for --route jt).
    void addTo(CLI::App &app, const std::string &scope, const std::vector<std::string> &extra = {});
    // The heuristic asked for, or the route's default.
    std::string heuristicOr(const std::string &routeDefault) const {
        return heuristic.empty() ? routeDefault : heuristic;
    }
};

// An elimination order as the flags ask: read from --order, the order search (heuristic
// "search", bounded by searchMs) or one greedy heuristic, over factors of these scopes.
struct ChosenOrder {
    std::vector<uint32_t> order;
    std::string heuristic; // "given", "search" or a greedy heuristic's name
    OrderSearchResult search;
    OrderSearchOptions searchOptions;
    double timeMs = 0;
};
Result<ChosenOrder> chooseOrder(const std::vector<uint32_t> &domains,
                                const std::vector<std::vector<uint32_t>> &scopes,
                                const OrderFlags &flags, const std::string &routeDefault,
                                double searchMs);

} // namespace zbddc
