// What a junction tree will need, read off its structure before any table is allocated: the
// figures `zbddc stats NET --route jt` prints (docs/cli.md). Entries are float64, so sizes far
// beyond memory still report.
#pragma once

#include "compiler/junction_tree/junction_tree.h"

#include <cstdint>

namespace zbddc {

struct JunctionTreeStats {
    uint32_t variables = 0;
    uint32_t factors = 0;
    uint32_t cliques = 0;
    uint32_t largestCliqueVariables = 0; // of the clique with the most entries
    double largestCliqueEntries = 0;
    double totalCliqueEntries = 0; // the potentials: memory, and per propagation the work
    double largestSeparatorEntries = 0;
    double totalSeparatorEntries = 0; // the messages: one table per edge, both passes reuse it
    uint32_t inducedWidth = 0;        // most variables in a clique, minus one
    uint32_t height = 0;              // edges from the root to the deepest leaf
    uint32_t widestLevel = 0;         // most cliques in one collect level
};

JunctionTreeStats junctionTreeStats(const JunctionTree &jt);

} // namespace zbddc
