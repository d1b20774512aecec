// A lower bound on what any junction tree of a graph holds, found in near-linear time, before an
// order is searched: the graph's degeneracy (the largest, over the vertices removed one at a time
// by least degree, of the degree at removal; no fill) bounds its treewidth from below (every
// subgraph of a graph of treewidth k has a vertex of degree at most k; Bodlaender and Koster
// 2011's δD). So some clique of every tree holds degeneracy + 1 variables, and at least the
// product of that many smallest domains. A model refused on this bound is refused for every
// order, without minutes of min-fill runs on a dense graph (UAI's relational_1: 500 variables,
// degeneracy 250, 63 s per min-fill run).
#pragma once

#include "compiler/elimination/elimination_order.h"

#include <cstdint>

namespace zbddc {

uint32_t degeneracy(const InteractionGraph &graph);

// Entries of the smallest clique that every junction tree of `graph` must hold at least.
double leastLargestCliqueEntries(const InteractionGraph &graph);

} // namespace zbddc
