// The maximal cliques of a triangulated graph, read off its perfect elimination order in linear
// time (Blair and Peyton 1993 §4): v's elimination clique {v} ∪ N+(v) is maximal unless a vertex
// u whose first higher neighbour is v has |N+(u)| = |N+(v)| + 1, and then u's clique contains it.
// A maximal clique is thus a chain of vertices v1, v2 = first higher of v1, ..., vt, each one's
// clique absorbed by the previous one's; the top vt links the clique to the rest of the tree.
#pragma once

#include "compiler/junction_tree/triangulate.h"

#include <cstdint>
#include <span>
#include <vector>

namespace zbddc {

struct EliminationCliques {
    std::vector<uint32_t> cliqueStart; // numCliques() + 1 offsets into cliqueVars
    std::vector<uint32_t> cliqueVars;  // the vertices of each clique, ascending
    std::vector<uint32_t> top;         // top[c]: clique c's last-eliminated chain vertex; c's
                                       // separator towards its parent is N+(top[c])
    std::vector<uint32_t> cliqueOf;    // by vertex: the maximal clique containing {v} ∪ N+(v)

    uint32_t numCliques() const { return static_cast<uint32_t>(top.size()); }
    std::span<const uint32_t> clique(uint32_t c) const {
        return {cliqueVars.data() + cliqueStart[c], cliqueStart[c + 1] - cliqueStart[c]};
    }
};

// Cliques are numbered in the elimination order of their first vertex.
EliminationCliques maximalCliques(const Triangulation &t);

} // namespace zbddc
