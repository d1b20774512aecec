// A GPU rewrite of a TensorProgram: an op that reduces a large space onto few output rows (a
// junction tree's normaliser: every entry of the root clique onto one row per case) leaves the
// GPU idle, one thread or warp per row walking the whole space. It becomes two ops: the first
// keeps some of the eliminated variables (enough rows to fill the device), the second reduces
// those. ⊕ is associative, so the values are the same; table ids stay, new tables go at the end.
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
