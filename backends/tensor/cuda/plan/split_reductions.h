// A GPU rewrite of a TensorProgram: an op that reduces a large space onto few rows (a junction
// tree's normaliser) leaves the GPU idle, so it becomes two ops, the first keeping enough
// eliminated variables to fill the device, and the second is split again while it is still wide.
// ⊕ is associative; new tables go at the end.
//
// A junction tree's InverseMax over one case's message (a single row over millions of entries)
// splits into the ⊕ of its rest, then the inverse max over the kept variables. Under max-product
// that is the same scale. Under sum-product it is 1 / max_kept Σ_rest, not 1 / max: still a
// positive scale under which every entry is at most 1 and the largest at least 1 / (the
// message's entries). Every reader of the message reads the same scale table and the answers
// undo it (lower_junction_tree.h), so only the scale and the scaled messages change, not the
// answers. The first stage's Marginalize feeds the scale alone, so the MPE traceback
// (recoverAssignment, the GPU's VALUE phase) skips it (scaleOnlyTables).
#pragma once

#include "ir/tensor_program.h"

#include <cstdint>

namespace zbddc::cuda {

struct SplitReductionOptions {
    uint64_t minRows = uint64_t{1} << 17;       // output rows below this are worth splitting
    uint64_t minEliminated = uint64_t{1} << 10; // per output row, at least this many values
};

// Ops split, and the program with levels recomputed (returned even where nothing was split).
TensorProgram splitWideReductions(const TensorProgram &program,
                                  const SplitReductionOptions &options = {});

} // namespace zbddc::cuda
