// The elimination order of the junction-tree and bucket-elimination routes, chosen in one place:
// read from a file, found by the randomised search, or one greedy heuristic.
#pragma once

#include "compiler/junction_tree/order_search.h"
#include "ir/result.h"

#include <string>
#include <vector>

namespace zbddc::pipeline {

struct OrderOptions {
    std::string orderFile; // variable indices, first eliminated first
    std::string heuristic; // "": the route's own default (min-fill; search for junction trees)
    double searchMs = 1000; // the search's time bound

    std::string heuristicOr(const std::string &routeDefault) const {
        return heuristic.empty() ? routeDefault : heuristic;
    }
    bool given() const { return !orderFile.empty() || !heuristic.empty(); }
};

// The heuristics `heuristic` may name: greedyOrder's and "search".
const std::vector<std::string> &orderHeuristicNames();

struct ChosenOrder {
    std::vector<uint32_t> order;
    std::string heuristic; // "given", "search" or a greedy heuristic's name
    OrderSearchResult search;
    OrderSearchOptions searchOptions;
    double timeMs = 0;
};
// An order over factors of these scopes, as `options` ask, or the route's default heuristic.
Result<ChosenOrder> chooseOrder(const std::vector<uint32_t> &domains,
                                const std::vector<std::vector<uint32_t>> &scopes,
                                const OrderOptions &options, const std::string &routeDefault);

} // namespace zbddc::pipeline
