// A batch's optimal terms traced back (max/min semirings) by a backend that walks a whole batch
// at once: every output of every vector, and per vector the state of each variable whose
// indicator lies on its term. A vector the walk could not finish is marked, for the caller to
// answer another way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace zbddc {

struct TracedTerms {
    std::vector<double> outputs;  // count × numOutputs (natural logs in log space)
    std::vector<uint32_t> states; // count × numVariables: kNone where none of its indicators is
    std::vector<uint8_t> traced;  // per vector: 1 where its row of `states` holds its term
    std::string untraced;         // why the first vector not traced was not, or ""
};

} // namespace zbddc
