// One tie rule for MPE decoders — the tensor programs' VALUE phase on the host
// (recoverAssignment: bucket elimination and every junction tree) and on the GPU
// (value_phase_kernel.inc), and the MLF route's adjoint decoding (runtime/mpe_decode): a
// candidate replaces the one kept only where it is better by more than a tie, so among values
// equal within the tolerance the first met wins — the lowest joint index of an op's eliminated
// variables (ascending, the last fastest), the lowest state. Two executors' roundings of one
// program (1e-13 apart on pigs and link) then pick alike wherever the values within the tolerance
// of the best lie more than the tolerance from all others. The circuits' tracebacks (ir/interpret,
// the CUDA and JIT walkers) still take the first side of a ⊕ on exact ties only; the CUDA walk
// reports a ⊕ whose other side lies within the tolerance (flagsTie) as a tie.
//
// The relative tolerance is far above float64 rounding of a few thousand products and far below
// any real gap between probabilities of interest. Costs (min-sum) compare exactly. The
// comparisons are ir/mpe_tie_rule.inc's, which the GPU's MPE kernels compile from the same text.
#pragma once

#include "ir/semiring.h"

namespace zbddc {

#define ZB_MPE_TIE_RULE(...) __VA_ARGS__
#define ZB_TIE_FN inline
#include "ir/mpe_tie_rule.inc"
#undef ZB_TIE_FN
#undef ZB_MPE_TIE_RULE

inline constexpr double kMpeTieTolerance = zb_mpe_tie_tolerance;

// The same comparisons as CUDA source, for a kernel that decodes an MPE to compile ahead of its
// own text: the device decides ties by this very expression.
inline const char *mpeTieRuleKernelSource() {
#define ZB_MPE_TIE_RULE(...) #__VA_ARGS__
    return "#define ZB_TIE_FN __device__ __forceinline__\n"
#include "ir/mpe_tie_rule.inc"
           "\n";
#undef ZB_MPE_TIE_RULE
}

// Whether `a` beats `b` under semiring `s`'s ⊕ by more than a tie: max-product by the relative
// tolerance; max-sum (log probabilities) by it times max(1, |b|); min-sum exactly.
inline bool beatsBeyondTie(Semiring s, double a, double b) {
    switch (s) {
    case Semiring::MaxProduct: return zb_beats_beyond_tie(a, b, 1);
    case Semiring::MaxSum: return zb_beats_beyond_tie(a, b, 0);
    default: return SemiringOps{s}.better(a, b);
    }
}

// Whether `value` ties with or beats `best`: no MPE decoder prefers best to it.
inline bool reachesWithinTie(Semiring s, double value, double best) {
    return !beatsBeyondTie(s, best, value);
}

// Whether a decoder that kept `best` met a tie in `runnerUp`, the best of the values it did not
// keep: as the decoders compare, except that min-sum costs within the tolerance tie too
// (zb_flags_tie). Integer costs (min-sum-int64) tie only where equal.
inline bool flagsTie(Semiring s, double runnerUp, double best) {
    if (s == Semiring::MinSum)
        return zb_flags_tie(runnerUp, best, 1, 0);
    return reachesWithinTie(s, runnerUp, best);
}

} // namespace zbddc
