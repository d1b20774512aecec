// Whether a program's tables can live on the GPU as 32-bit floats with every value exact, halving
// the bytes each kernel moves (the kernels are bound by memory traffic at 10^7+ entries). A float
// holds every integer of magnitude up to 2^24 exactly, so it suffices that (1) the semiring adds
// costs (min-sum, max-sum), (2) every input value is an integer or infinite, and (3) a bound on
// every computed value's magnitude, propagated through the ops, stays below 2^24: an op's output
// is a ⊕ (min or max: no growth) of ⊗-sums of one entry of each input, so its bound is the sum
// of its inputs' bounds. Host-only: built and tested everywhere.
#pragma once

#include "ir/tensor_program.h"

namespace zbddc::cuda {

// The bound on the magnitude of every finite value the program computes (its result's ⊗ too),
// or +infinity where the program does not qualify by (1) or (2).
double narrowedMagnitudeBound(const TensorProgram &program);

// Below 2^24: every table, and every sum the kernels and the VALUE phase form, is exact in float.
bool fitsFloat32(const TensorProgram &program);

} // namespace zbddc::cuda
