// The CPU evaluation order of Minato et al. 2011 §3: a depth-first search from the outputs that,
// when a node has several children, visits first the child with the most parents. Single-parent
// values are then mostly consumed by the very next op, so straight-line code keeps them in
// registers and only the rest must be stored. Backends take the result as plain data.
#pragma once

#include "ir/circuit.h"

#include <vector>

namespace zbddc {

struct DfsOrder {
    // A permutation of all node ids: the nodes reachable from the outputs in DFS post-order
    // (operands before readers), then the unreachable ones in id order.
    std::vector<NodeId> order;
    size_t reachable = 0; // order[0, reachable) is what evaluation needs
    // Ops (Plus/Times/MulAdd) whose value must be stored: read by more than one op, or read by
    // an op that is not the next op in the order, or an output. Leaves (inputs, constants) are
    // never counted: they are already in memory.
    size_t stored = 0;
    size_t ops = 0; // reachable Plus/Times/MulAdd nodes
};

DfsOrder dfsOrder(const Circuit &circuit);

} // namespace zbddc
