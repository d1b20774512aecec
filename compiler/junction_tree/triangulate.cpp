#include "compiler/junction_tree/triangulate.h"

#include <algorithm>
#include <string>

namespace zbddc {

uint32_t Triangulation::firstHigher(uint32_t v) const {
    uint32_t first = UINT32_MAX;
    for (uint32_t u : higherNeighbours(v))
        if (first == UINT32_MAX || position[u] < position[first])
            first = u;
    return first;
}

Result<Triangulation> triangulate(const InteractionGraph &graph,
                                  const std::vector<uint32_t> &order) {
    const uint32_t n = static_cast<uint32_t>(graph.neighbours.size());
    Triangulation t;
    t.order = order;
    t.position.resize(n);
    for (uint32_t i = 0; i < n; ++i)
        t.position[order[i]] = i;
    // Gathered in elimination order, then laid out by vertex.
    std::vector<std::vector<uint32_t>> byVertex(n);
    uint64_t edges = 0;
    simulateElimination(graph, order, [&](uint32_t v, const std::vector<uint32_t> &nb) {
        byVertex[v] = nb;
        edges += nb.size();
    });
    if (edges > UINT32_MAX)
        return error("the triangulated graph has " + std::to_string(edges) +
                     " edges, more than 32-bit offsets hold");
    uint64_t original = 0;
    for (const auto &nb : graph.neighbours)
        original += nb.size();
    t.fillEdges = edges - original / 2;
    t.higherStart.reserve(n + 1);
    t.higherStart.push_back(0);
    t.higher.reserve(edges);
    for (uint32_t v = 0; v < n; ++v) {
        t.higher.insert(t.higher.end(), byVertex[v].begin(), byVertex[v].end());
        t.higherStart.push_back(static_cast<uint32_t>(t.higher.size()));
    }
    return t;
}

} // namespace zbddc
