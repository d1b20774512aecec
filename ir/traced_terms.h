// A batch's optimal terms traced back (max/min semirings) by a backend that walks a whole batch
// at once: every output of every vector, and per vector the state of each variable whose
// indicator lies on its term. A vector the walk could not finish is marked, for the caller to
// answer another way.
#pragma once

#include "ir/circuit.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace zbddc {

struct TracedTerms {
    std::vector<double> outputs;  // count × numOutputs (natural logs in log space)
    std::vector<uint32_t> states; // count × numVariables: kNone where none of its indicators is
    std::vector<uint8_t> traced;  // per vector: 1 where its row of `states` holds its term
    // Per vector, where the backend tells: 1 where some ⊕ on its walk had its other side within
    // the tie tolerance (ir/mpe_tie.h) of the side taken, so another term reaches the optimum; 0
    // where none had, so every other term falls short of it. Empty where the backend cannot tell.
    std::vector<uint8_t> tied;
    std::string untraced; // why the first vector not traced was not, or ""
};

// Whether vector k's traced term may share the optimum, for TaskResult::mpeTied given its
// assignment (the states on its term, the evidence's elsewhere): the walk's report, unset where
// the backend gave none or where a variable is left undetermined (kNone: its indicators lie on
// no term, so each of its states gives the same value).
inline std::optional<bool> tracedTie(const TracedTerms &t, size_t k,
                                     std::span<const uint32_t> assignment) {
    if (k >= t.tied.size() ||
        std::find(assignment.begin(), assignment.end(), kNone) != assignment.end())
        return std::nullopt;
    return t.tied[k] != 0;
}

// What a walk sets on meeting input i: (variable, state) at 2i, 2i + 1 for an indicator, kNone
// for any other input.
inline std::vector<uint32_t> indicatorStates(std::span<const InputInfo> inputs) {
    std::vector<uint32_t> pairs;
    pairs.reserve(2 * inputs.size());
    for (const InputInfo &in : inputs) {
        const bool indicator = in.kind == InputKind::Indicator;
        pairs.push_back(indicator ? in.variable : kNone);
        pairs.push_back(indicator ? in.state : kNone);
    }
    return pairs;
}

} // namespace zbddc
