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
    // their run would (kCpuMsPerCliqueEntry per case and entry, kCpuMsPerClique per case and
    // clique), within searchMs.
    size_t expectedCases = 0;

    std::string heuristicOr(const std::string &routeDefault) const {
        return heuristic.empty() ? routeDefault : heuristic;
    }
    bool given() const { return !orderFile.empty() || !heuristic.empty(); }
};

// A CPU junction tree's time per case and clique entry, at its least: a case slices the CPTs by
// its evidence first, so its time per entry of the full tree spans two decades (one case on one
// thread of the 2-core VM, min-fill's tree, 2026-12-06: munin1 17 ms over 7.7·10^7 entries,
// water 7 over 3.4·10^6, munin2 17 over 3.1·10^6, pigs 14 over 6.1·10^5). At the least, a search
// for fewer entries never spends more than the cases it serves would take: with munin2's figure
// (6e-6) one case of munin1 searched for 100 ms to save 8.
inline constexpr double kCpuMsPerCliqueEntry = 2.2e-7;
// And per clique, at its least (the same cases: alarm 0.47 ms over 27 cliques, munin2 17 over
// 862, pigs 14 over 368): the part of a case that small tables do not make cheaper, so that a
// network of many small cliques (pigs) still searches for its better order.
inline constexpr double kCpuMsPerClique = 1.7e-2;

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
