// From the maximal cliques of a triangulation to a rooted junction tree.
//
// Edges: the elimination-order construction (Blair and Peyton 1993 §4): the clique whose top
// vertex is t links to the clique containing t's first higher neighbour, over the separator
// N+(t). It is linear, and loses nothing against a maximum-weight spanning tree on separator
// sizes (Jensen and Jensen 1994): every clique tree of a chordal graph has the same multiset of
// separators (Blair and Peyton 1993 §4.1), hence the same message sizes. Separate connected
// components are joined to the root by empty separators.
//
// Root: the centre of the tree (least eccentricity in edges; of two centres the larger clique).
// The table sizes do not depend on the root, but the number of sequential message steps of each
// pass is the root's eccentricity, which the centre minimises; the levels of independent
// messages are what a parallel executor runs one after another.
#pragma once

#include "compiler/junction_tree/junction_tree.h"
#include "compiler/junction_tree/maximal_cliques.h"

#include <cstdint>
#include <vector>

namespace zbddc {

// `scopes` are the factors' scopes (each a clique of the triangulated graph, as the families of
// a moral graph are); the result is numbered and levelled as junction_tree.h says.
JunctionTree buildCliqueTree(const std::vector<uint32_t> &domainSizes, const Triangulation &t,
                             const EliminationCliques &cliques,
                             const std::vector<std::vector<uint32_t>> &scopes);

} // namespace zbddc
