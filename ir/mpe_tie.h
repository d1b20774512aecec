// One tie rule for MPE decoders — the tensor programs' VALUE phase on the host
// (recoverAssignment: bucket elimination and every junction tree) and on the GPU
// (value_phase_kernel.inc), and the MLF route's adjoint decoding (runtime/mpe_decode): a
// candidate replaces the one kept only where it is better by more than a tie, so among values
// equal within the tolerance the first met wins — the lowest joint index of an op's eliminated
// variables (ascending, the last fastest), the lowest state. Two executors' roundings of one
// program (1e-13 apart on pigs and link) then pick alike wherever the values within the tolerance
// of the best lie more than the tolerance from all others. The circuits' tracebacks (ir/interpret,
// the CUDA and JIT walkers) still take the first side of a ⊕ on exact ties only.
//
// The relative tolerance is far above float64 rounding of a few thousand products and far below
// any real gap between probabilities of interest. Costs (min-sum) compare exactly.
#pragma once

#include "ir/semiring.h"

#include <algorithm>
#include <cmath>

namespace zbddc {

inline constexpr double kMpeTieTolerance = 1e-9;

// Whether `a` beats `b` under semiring `s`'s ⊕ by more than a tie: max-product by the relative
// tolerance; max-sum (log probabilities) by it times max(1, |b|); min-sum exactly.
inline bool beatsBeyondTie(Semiring s, double a, double b) {
    switch (s) {
    case Semiring::MaxProduct: return a > b + kMpeTieTolerance * std::fabs(b);
    case Semiring::MaxSum: return a > b + kMpeTieTolerance * std::max(1.0, std::fabs(b));
    default: return SemiringOps{s}.better(a, b);
    }
}

// Whether `value` ties with or beats `best`: no MPE decoder prefers best to it.
inline bool reachesWithinTie(Semiring s, double value, double best) {
    return !beatsBeyondTie(s, best, value);
}

} // namespace zbddc
