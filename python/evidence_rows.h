// Evidence as Python gives it, as the library takes it. The batch form is a matrix of state
// indices, cases x variables in the model's variable order, -1 where a variable is unobserved;
// dicts (name -> state name or index) are encoded into such rows first.
#pragma once

#include "ir/result.h"
#include "runtime/evidence.h"

#include <cstdint>
#include <vector>

namespace zbddc::python {

inline constexpr int64_t kUnobserved = -1;

// One Evidence per row of `rows` (cases x variables.size(), row-major). A state out of range is
// an error naming the case and the variable, as the command line names a bad .evid entry.
Result<std::vector<Evidence>> casesFromRows(const int64_t *rows, size_t cases,
                                            const std::vector<Variable> &variables);

} // namespace zbddc::python
