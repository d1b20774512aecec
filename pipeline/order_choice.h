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
    // The cases the order's tree will answer (0: not known): the search takes no longer than
    // their run would (kCpuMsPerCliqueEntry per case and entry), within searchMs.
    size_t expectedCases = 0;

    std::string heuristicOr(const std::string &routeDefault) const {
        return heuristic.empty() ? routeDefault : heuristic;
    }
    bool given() const { return !orderFile.empty() || !heuristic.empty(); }
};

// A CPU junction tree's time per case and clique entry: munin2's one case on one thread of the
// 2-core VM, 19 ms over 3.1·10^6 entries (2026-12-06). What a search for fewer entries may spend.
inline constexpr double kCpuMsPerCliqueEntry = 6e-6;

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
