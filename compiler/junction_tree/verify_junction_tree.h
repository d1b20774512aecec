// Checks that a JunctionTree is one, property by property, so a failure names what is broken:
// - shape: array sizes agree, ids in range, each clique's variables ascending and distinct;
// - tree: every clique reaches clique 0 through parents without a cycle (one connected tree),
//   and the numbering is breadth-first (parent[c] < c, depths contiguous);
// - separators: each edge's separator is exactly the intersection of its two cliques;
// - running intersection: the cliques containing any variable form a connected subtree
//   (Lauritzen and Spiegelhalter 1988), and every variable is in some clique;
// - families: every factor's scope lies inside the clique it is assigned to, and each
//   variable's clique contains it;
// - schedule: collectOrder is a permutation grouped by height, the root alone last.
// Run by buildJunctionTree in debug builds and by the tests; cost linear in the arrays.
#pragma once

#include "compiler/junction_tree/junction_tree.h"
#include "ir/result.h"

#include <cstdint>
#include <vector>

namespace zbddc {

Status verifyJunctionTree(const JunctionTree &jt,
                          const std::vector<std::vector<uint32_t>> &factorScopes);

} // namespace zbddc
