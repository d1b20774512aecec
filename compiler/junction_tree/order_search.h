// An elimination order chosen by what the junction tree will cost: the total entries of its
// clique tables (OrderStats::totalCliqueEntries), which the potentials' memory is and a
// propagation's time is proportional to — Kjærulff 1990's total state space.
//
// The search: one deterministic greedy run per heuristic (plain min-fill first), then randomised
// runs of the same heuristics in turn, ties on the metric broken at random (the iterated
// stochastic greedy ordering of Kask et al. 2011), then — from run runsPerSlack on — with a
// slack on the metric (greedyOrder: any vertex within 1 + slack of the best), until maxRuns runs
// are made or timeLimitMs has passed, or (with msPerEntry) the search has taken longer than the
// best order so far would take to run: a search that outlasts the run it serves cannot pay for
// itself (munin2's one case: 0.85 s of search for a 19 ms case). The first runsPerSlack runs are the tie-only search, so the
// longer one never returns an order with more entries than it. Each order is scored by
// simulating its elimination (analyzeOrder); the fewest total entries win, then the smaller
// largest clique, then the earlier run. Since plain min-fill is a run, the result is never worse
// than min-fill. The deterministic runs always happen; only the time limit makes the result
// depend on the machine (munin2–4, about 1,000 variables, reach it on the 2-core VM).
#pragma once

#include "compiler/elimination/elimination_order.h"

#include <cstdint>
#include <string>
#include <vector>

namespace zbddc {

struct OrderSearchOptions {
    std::vector<OrderHeuristic> heuristics = {OrderHeuristic::MinFill,
                                              OrderHeuristic::WeightedMinFill,
                                              OrderHeuristic::MinWeight, OrderHeuristic::MinDegree};
    uint32_t maxRuns = 192;    // deterministic and randomised runs together
    double timeLimitMs = 1000; // no randomised run starts after this
    // The run the order serves, in ms per clique entry and per clique (0: not weighed); no
    // randomised run starts once the search has taken the best order's entries and cliques times
    // these.
    double msPerEntry = 0, msPerClique = 0;
    uint64_t seed = 1;         // of the randomised tie-breaking
    // Runs [k·runsPerSlack, (k+1)·runsPerSlack) take slacks[k], the last one thereafter. Where
    // each helps (100 runs of one heuristic): munin1 1.8·10^8 → 0.87·10^8 entries, water
    // 3.47·10^6 → 3.03·10^6, mildew 4.18·10^6 → 3.49·10^6; barley stays at 1.71·10^7.
    std::vector<double> slacks = {0, 0.5, 1};
    uint32_t runsPerSlack = 64;
};

struct OrderSearchResult {
    std::vector<uint32_t> order;
    OrderStats stats;
    OrderHeuristic heuristic = OrderHeuristic::MinFill; // of the best run
    uint32_t bestRun = 0;                               // 0-based; randomised when >= heuristics
    uint32_t runs = 0;                                  // runs made
    double timeMs = 0;

    bool randomised(const OrderSearchOptions &o) const { return bestRun >= o.heuristics.size(); }
};

OrderSearchResult searchOrder(const InteractionGraph &graph,
                              const OrderSearchOptions &options = {});

} // namespace zbddc
