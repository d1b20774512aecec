// A batch's optimal terms traced back (max/min semirings) by a backend that walks a whole batch
// at once: every output of every vector, and per vector the state of each variable whose
// indicator lies on its term. A vector the walk could not finish is marked, for the caller to
// answer another way.
#pragma once

#include "ir/circuit.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace zbddc {

struct TracedTerms {
    std::vector<double> outputs;  // count × numOutputs (natural logs in log space)
    std::vector<uint32_t> states; // count × numVariables: kNone where none of its indicators is
    std::vector<uint8_t> traced;  // per vector: 1 where its row of `states` holds its term
    std::string untraced;         // why the first vector not traced was not, or ""
};

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
