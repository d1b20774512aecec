// A GPU rewrite of a TensorProgram: an op that reduces a large space onto few rows (a junction
// tree's normaliser) leaves the GPU idle, so it becomes two ops, the first keeping enough
// eliminated variables to fill the device. ⊕ is associative; new tables go at the end.
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
