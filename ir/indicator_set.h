// The indicator inputs a reader has read so far (.zdd files, model.so metadata): each (variable,
// state) may have one, since evidence sets the indicators it finds and a second input for the
// same state would answer wrongly (P(Rain = no) = 0 for a .zdd that named Rain = yes twice).
#pragma once

#include "ir/circuit.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace zbddc {

class IndicatorSet {
  public:
    // Records input `index`; where it repeats an earlier indicator, the error message
    // ("input 1 repeats input 0: the indicator of Rain = yes"), else "".
    std::string add(const InputInfo &input, size_t index, const std::vector<Variable> &variables) {
        if (input.kind != InputKind::Indicator)
            return {};
        const auto [it, added] = seen_.emplace(uint64_t{input.variable} << 32 | input.state, index);
        if (added)
            return {};
        return "input " + std::to_string(index) + " repeats input " + std::to_string(it->second) +
               ": the indicator of " + variables[input.variable].name + " = " +
               variables[input.variable].states[input.state];
    }

  private:
    std::unordered_map<uint64_t, size_t> seen_;
};

} // namespace zbddc
