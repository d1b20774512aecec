#include "compiler/elimination/elimination_stats.h"

#include <algorithm>

namespace zbddc {

std::vector<std::vector<uint32_t>> functionScopes(const CostNetwork &network) {
    std::vector<std::vector<uint32_t>> scopes;
    scopes.reserve(network.functions.size());
    for (const CostFunction &f : network.functions)
        scopes.push_back(f.scope);
    return scopes;
}

Result<EliminationStats> eliminationStats(const CostNetwork &network,
                                          const std::vector<uint32_t> &order,
                                          const std::string &heuristic) {
    const size_t n = network.numVariables();
    if (Status s = checkOrder(order, n); !s)
        return s.error();
    EliminationStats st;
    st.heuristic = heuristic;
    st.variables = n;
    st.functions = network.functions.size();
    for (uint32_t d : network.domainSizes)
        st.maxDomain = std::max(st.maxDomain, d);
    const auto scopes = functionScopes(network);
    for (const auto &scope : scopes) {
        st.maxArity = std::max<uint32_t>(st.maxArity, static_cast<uint32_t>(scope.size()));
        double entries = 1;
        for (uint32_t v : scope)
            entries *= network.domainSizes[v];
        st.inputEntries += entries;
    }
    st.order = analyzeOrder(buildInteractionGraph(network.domainSizes, scopes), order);

    // The buckets' dependency structure, simulated on scopes (no tables): a scope waits in the
    // bucket of its earliest-eliminated variable; a bucket's message goes one level above the
    // deepest thing in it. This is buildBucketProgram's placement without evidence.
    std::vector<uint32_t> pos(n);
    for (uint32_t i = 0; i < n; ++i)
        pos[order[i]] = i;
    struct Waiting {
        std::vector<uint32_t> scope;
        size_t level;
    };
    std::vector<std::vector<Waiting>> bucket(n);
    auto place = [&](std::vector<uint32_t> scope, size_t level) {
        if (scope.empty())
            return;
        const uint32_t first = *std::min_element(
            scope.begin(), scope.end(), [&](uint32_t a, uint32_t b) { return pos[a] < pos[b]; });
        bucket[first].push_back({std::move(scope), level});
    };
    for (const auto &scope : scopes)
        place(scope, 0);
    for (uint32_t v : order) {
        if (bucket[v].empty())
            continue;
        ++st.buckets;
        size_t level = 0;
        std::vector<uint32_t> separator;
        for (const Waiting &w : bucket[v]) {
            level = std::max(level, w.level);
            for (uint32_t u : w.scope)
                if (u != v && std::find(separator.begin(), separator.end(), u) == separator.end())
                    separator.push_back(u);
        }
        st.levels = std::max(st.levels, level + 1);
        place(std::move(separator), level + 1);
        bucket[v].clear();
        bucket[v].shrink_to_fit();
    }
    return st;
}

} // namespace zbddc
