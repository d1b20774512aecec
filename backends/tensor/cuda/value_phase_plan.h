// The VALUE phase (Dechter 1999's backward pass; Fioretto et al. 2015 §2.2) flattened into one
// array of 32-bit words, so a single warp on the device can walk it over tables that never leave
// the device (value_phase_kernel.inc). Host-only: built and tested everywhere.
//
// Layout: nResults, result table ids; nOps; then per reducing op (Marginalize, EliminateBucket),
// last op first:
//   nVars, per eliminated variable (variable, domain, stride low, stride high) — the stride of its
//          digit in the joint index, the last variable fastest as the host's odometer counts;
//   nInputs, per input (table id, scope length, per scope variable (variable, domain)), where an
//          eliminated variable is written as 0x80000000 | its index among the op's `vars`.
#pragma once

#include "ir/tensor_program.h"

#include <cstdint>
#include <vector>

namespace zbddc::cuda {

// Fails where the plan's words cannot hold the program (over 2^31 variables, say). `pinned` (per
// variable, optional): variables that keep the value the assignment arrives with, as
// recoverAssignment's `pinned` (a junction tree's observed variables, per case).
Result<std::vector<uint32_t>> buildValuePhasePlan(const TensorProgram &program,
                                                  const std::vector<uint8_t> *pinned = nullptr);

// The kernel's semiring arguments: whether ⊕ minimises, whether ⊗ multiplies.
inline int valuePhaseMinimizes(Semiring s) {
    return s == Semiring::MinSum || s == Semiring::MinSumInt64 ? 1 : 0;
}
inline int valuePhaseMultiplies(Semiring s) {
    return s == Semiring::SumProduct || s == Semiring::MaxProduct ? 1 : 0;
}

} // namespace zbddc::cuda
