#include "compiler/junction_tree/order_search.h"

#include "support/timer.h"

#include <algorithm>

namespace zbddc {

namespace {

bool better(const OrderStats &a, const OrderStats &b) {
    if (a.totalCliqueEntries != b.totalCliqueEntries)
        return a.totalCliqueEntries < b.totalCliqueEntries;
    return a.largestBucketEntries < b.largestBucketEntries;
}

// A distinct non-zero tie seed per run (splitmix64 of the run index); 0 means "deterministic".
uint64_t runSeed(uint64_t seed, uint32_t run) {
    uint64_t z = seed + 0x9e3779b97f4a7c15ull * (run + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return z == 0 ? 1 : z;
}

} // namespace

OrderSearchResult searchOrder(const InteractionGraph &graph, const OrderSearchOptions &options) {
    const SteadyTime t0 = std::chrono::steady_clock::now();
    OrderSearchResult best;
    const uint32_t kinds = static_cast<uint32_t>(options.heuristics.size());
    for (uint32_t run = 0; kinds > 0; ++run) {
        const bool deterministic = run < kinds;
        if (!deterministic) {
            const double spent = msSince(t0);
            if (run >= options.maxRuns || spent >= options.timeLimitMs ||
                (options.msPerEntry + options.msPerClique > 0 &&
                 spent >= options.msPerEntry * best.stats.totalCliqueEntries +
                              options.msPerClique * best.stats.cliques))
                break;
        }
        const OrderHeuristic h = options.heuristics[run % kinds];
        const size_t round = options.runsPerSlack ? run / options.runsPerSlack : 0;
        const double slack =
            options.slacks.empty() ? 0 : options.slacks[std::min(round, options.slacks.size() - 1)];
        std::vector<uint32_t> order = greedyOrder(
            graph, h, deterministic ? 0 : runSeed(options.seed, run), deterministic ? 0 : slack);
        const OrderStats stats = analyzeOrder(graph, order);
        if (run == 0 || better(stats, best.stats)) {
            best.order = std::move(order);
            best.stats = stats;
            best.heuristic = h;
            best.bestRun = run;
        }
        best.runs = run + 1;
    }
    best.timeMs = msSince(t0);
    return best;
}

} // namespace zbddc
