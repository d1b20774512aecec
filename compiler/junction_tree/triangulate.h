// The triangulation of a graph by an elimination order: every fill edge the elimination adds is
// kept, so the order is a perfect elimination order of the result, which is chordal (Rose et al.
// 1976). Stored as each vertex's higher neighbours N+(v) — its neighbours eliminated
// after it — which is all that the cliques and the clique tree need.
#pragma once

#include "compiler/elimination/elimination_order.h"
#include "ir/result.h"

#include <cstdint>
#include <span>
#include <vector>

namespace zbddc {

struct Triangulation {
    std::vector<uint32_t> order;       // elimination order, first eliminated first
    std::vector<uint32_t> position;    // position[v]: v's index in order
    std::vector<uint32_t> higherStart; // by vertex, numVertices() + 1 offsets into higher
    std::vector<uint32_t> higher;      // N+(v), ascending
    uint64_t fillEdges = 0;            // edges added to the graph

    uint32_t numVertices() const { return static_cast<uint32_t>(position.size()); }
    std::span<const uint32_t> higherNeighbours(uint32_t v) const {
        return {higher.data() + higherStart[v], higherStart[v + 1] - higherStart[v]};
    }
    // v's first higher neighbour (the one eliminated next), or UINT32_MAX when N+(v) is empty:
    // v's parent in the elimination tree.
    uint32_t firstHigher(uint32_t v) const;
};

// `order` must be a permutation of the graph's vertices (checkOrder). Fails only when the
// triangulated graph has 2^32 edges or more (32-bit offsets).
Result<Triangulation> triangulate(const InteractionGraph &graph,
                                  const std::vector<uint32_t> &order);

} // namespace zbddc
