#include "compiler/junction_tree/treewidth_bound.h"

#include <algorithm>
#include <set>
#include <utility>

namespace zbddc {

uint32_t degeneracy(const InteractionGraph &graph) {
    const size_t n = graph.neighbours.size();
    std::vector<uint32_t> degree(n);
    std::set<std::pair<uint32_t, uint32_t>> byDegree;
    for (uint32_t v = 0; v < n; ++v) {
        degree[v] = static_cast<uint32_t>(graph.neighbours[v].size());
        byDegree.insert({degree[v], v});
    }
    std::vector<bool> removed(n, false);
    uint32_t most = 0;
    while (!byDegree.empty()) {
        const auto [d, v] = *byDegree.begin();
        byDegree.erase(byDegree.begin());
        most = std::max(most, d);
        removed[v] = true;
        for (uint32_t u : graph.neighbours[v])
            if (!removed[u]) {
                byDegree.erase({degree[u], u});
                byDegree.insert({--degree[u], u});
            }
    }
    return most;
}

double leastLargestCliqueEntries(const InteractionGraph &graph) {
    if (graph.domainSizes.empty())
        return 1;
    std::vector<uint32_t> domains = graph.domainSizes;
    std::sort(domains.begin(), domains.end());
    const size_t k = std::min<size_t>(domains.size(), size_t{degeneracy(graph)} + 1);
    double entries = 1;
    for (size_t i = 0; i < k; ++i)
        entries *= domains[i];
    return entries;
}

} // namespace zbddc
