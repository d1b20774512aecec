#include "compiler/junction_tree/maximal_cliques.h"

#include <algorithm>

namespace zbddc {

EliminationCliques maximalCliques(const Triangulation &t) {
    const uint32_t n = t.numVertices();
    EliminationCliques ec;
    ec.cliqueOf.assign(n, UINT32_MAX);
    ec.cliqueStart.push_back(0);
    // largestChild[v]: among the u eliminated so far whose first higher neighbour is v, the one
    // with the most higher neighbours (a candidate to absorb v's clique).
    std::vector<uint32_t> largestChild(n, UINT32_MAX);
    for (uint32_t v : t.order) {
        const auto nb = t.higherNeighbours(v);
        const uint32_t u = largestChild[v];
        if (u != UINT32_MAX && t.higherNeighbours(u).size() == nb.size() + 1) {
            ec.cliqueOf[v] = ec.cliqueOf[u]; // {v} ∪ N+(v) = N+(u) ⊂ u's clique
            ec.top[ec.cliqueOf[v]] = v;
        } else {
            ec.cliqueOf[v] = ec.numCliques();
            ec.top.push_back(v);
            const size_t begin = ec.cliqueVars.size();
            ec.cliqueVars.insert(ec.cliqueVars.end(), nb.begin(), nb.end());
            ec.cliqueVars.insert(
                std::upper_bound(ec.cliqueVars.begin() + begin, ec.cliqueVars.end(), v), v);
            ec.cliqueStart.push_back(static_cast<uint32_t>(ec.cliqueVars.size()));
        }
        if (const uint32_t p = t.firstHigher(v); p != UINT32_MAX) {
            const uint32_t q = largestChild[p];
            if (q == UINT32_MAX || t.higherNeighbours(q).size() < nb.size())
                largestChild[p] = v;
        }
    }
    return ec;
}

} // namespace zbddc
