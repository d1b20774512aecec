// How a lowered junction-tree program's tables grow with its batch, what batch sizes are chosen
// by: the entries that grow with the number of cases (per case), and the rest.
#pragma once

#include "compiler/junction_tree/lower_junction_tree.h"

#include <cstdint>

namespace zbddc {

struct ProgramEntries {
    uint64_t perCase = 0, fixed = 0;
    uint64_t atBatch(uint64_t batch) const { return fixed + perCase * batch; }
};

ProgramEntries programEntries(const JunctionTreeProgram &jt);

} // namespace zbddc
