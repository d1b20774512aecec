// Whether a program's tables can live on the GPU as 32-bit floats with every value exact, halving
// the bytes each kernel moves: (1) the semiring adds costs (min-sum, max-sum), (2) every input is
// an integer or infinite, (3) the bound on every computed magnitude (an op's: the sum of its
// inputs') stays below 2^24. Host-only: built and tested everywhere.
#pragma once

#include "ir/tensor_program.h"

namespace zbddc::cuda {

// The bound on the magnitude of every finite value the program computes (its result's ⊗ too),
// or +infinity where the program does not qualify by (1) or (2).
double narrowedMagnitudeBound(const TensorProgram &program);

// Below 2^24: every table, and every sum the kernels and the VALUE phase form, is exact in float.
bool fitsFloat32(const TensorProgram &program);

} // namespace zbddc::cuda
