// The one host-side walk down an optimal term of a max/min value (MPE's traceback): from the
// value, the side that gives every ⊕ its value (the first on a tie) and both sides of every ⊗,
// down to the inputs on the term. The reference (ir/interpret.h's traceback, over a Circuit's
// nodes), the CPU's data-driven loop (over its slots) and the CUDA plan (over its slots, each
// merged op's template expanded; backends/cuda/plan_traceback.h) walk with it. The GPU's own
// walk is generated device code (backends/cuda/traceback_kernel.inc) that follows the same rule.
#pragma once

#include "ir/circuit.h"
#include "ir/interpret.h"
#include "ir/mpe_tie.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace zbddc {

enum class TermWalkEnd : uint8_t {
    Done,
    Stopped, // onInput said stop (two states of one variable on the term)
    TooLong, // more than maxSteps ops: a term that repeats shared ops
};

// Walks the term of `root`. `Walk` names the items (nodes or slots):
//   bool firstVisit(uint32_t item)   false to skip an item met before (or always true, with a
//                                    step bound instead of a visited set)
//   uint32_t input(uint32_t item)    the input index of an input leaf, else kNone
//   bool isOp(uint32_t item)         false for a leaf without an input (a constant)
//   void pushChosen(uint32_t item, std::vector<uint32_t> &pending)   the op's operands on the term
// `onInput(input)` is called for each input met and returns false to stop the walk.
template <class Walk, class OnInput>
TermWalkEnd walkOptimalTerm(Walk &walk, uint32_t root, size_t maxSteps,
                            std::vector<uint32_t> &pending, OnInput &&onInput) {
    pending.assign(1, root);
    size_t steps = 0;
    while (!pending.empty()) {
        const uint32_t item = pending.back();
        pending.pop_back();
        if (!walk.firstVisit(item))
            continue;
        if (const uint32_t in = walk.input(item); in != kNone) {
            if (!onInput(in))
                return TermWalkEnd::Stopped;
            continue;
        }
        if (!walk.isOp(item))
            continue;
        if (++steps > maxSteps)
            return TermWalkEnd::TooLong;
        walk.pushChosen(item, pending);
    }
    return TermWalkEnd::Done;
}

// Whether a walk met a ⊕ on its term whose other side lies within the tie tolerance of the side
// taken (flagsTie in `ring`: the semiring as the values hold it, MaxSum for max-product in
// logs), so that another term reaches the optimum; where none did, every other term falls short
// (as the GPU's walk reports it, TracedTerms::tied).
struct TieWatch {
    Semiring ring;
    bool met = false;
    void see(double other, double taken) { met = met || flagsTie(ring, other, taken); }
};

// The semiring a walk over values of `numeric` compares ties in, or nullopt where it cannot tell
// (float32 values: their rounding exceeds the tolerance).
inline std::optional<Semiring> tieRing(Semiring s, Numeric numeric) {
    if (isFloat32(numeric))
        return std::nullopt;
    return s == Semiring::MaxProduct && inLogSpace(numeric) ? Semiring::MaxSum : s;
}

// The operands on the term of one Plus, Times or MulAdd ((a ⊗ b) ⊕ c) whose operands hold
// values va, vb, vc, in the arithmetic `A` of the evaluation (A::plus, A::times, or an object's);
// `watch`, where given, sees every ⊕'s side not taken.
template <class A>
void pushChosenOperands(const A &ar, OpKind kind, uint32_t a, uint32_t b, uint32_t c, double va,
                        double vb, double vc, std::vector<uint32_t> &pending,
                        TieWatch *watch = nullptr) {
    switch (kind) {
    case OpKind::Plus: {
        const bool first = ar.plus(va, vb) == va;
        pending.push_back(first ? a : b);
        if (watch)
            watch->see(first ? vb : va, first ? va : vb);
        break;
    }
    case OpKind::Times:
        pending.insert(pending.end(), {b, a});
        break;
    case OpKind::MulAdd: {
        const double ab = ar.times(va, vb);
        const bool first = ar.plus(ab, vc) == ab;
        if (first)
            pending.insert(pending.end(), {b, a});
        else
            pending.push_back(c);
        if (watch)
            watch->see(first ? vc : ab, first ? ab : vc);
        break;
    }
    default:
        break;
    }
}

// Sets the state of input `input`'s variable in `states` where it is an indicator (`indicator`:
// (variable, state) per input, ir/traced_terms.h's indicatorStates); false where the variable
// already holds another state (two states of one variable on the term).
inline bool setIndicatorState(std::span<const uint32_t> indicator, uint32_t input,
                              std::span<uint32_t> states) {
    const uint32_t variable = indicator[2 * input], state = indicator[2 * input + 1];
    if (variable == kNone)
        return true;
    if (states[variable] == kNone)
        states[variable] = state;
    return states[variable] == state;
}

} // namespace zbddc
