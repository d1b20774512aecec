// Structural counts of a Circuit, as `zbddc stats` reports them.
#pragma once

#include "ir/circuit.h"

#include <cstdint>

namespace zbddc {

struct CircuitStats {
    uint64_t nodes = 0;   // every node, leaves included
    uint64_t ops = 0;     // Plus, Times and MulAdd nodes
    uint64_t typeA = 0;   // MulAdd: f[b]x[c] + f[d] (Minato et al. 2011)
    uint64_t typeB = 0;   // Times:  f[b]x[c]
    uint64_t plus = 0;    // Plus
    uint64_t inputs = 0;
    uint64_t outputs = 0;
    uint64_t levels = 0;  // longest path in ops from the leaves (leaves are level 0)
};

CircuitStats circuitStats(const Circuit &circuit);

} // namespace zbddc
