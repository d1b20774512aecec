// Elimination order files (`--order FILE`): variable indices separated by white space, `#`
// comments, each variable exactly once, eliminated first to last.
#pragma once

#include "ir/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zbddc {

// `name` is the file name errors carry ("FILE:LINE: variable 3 appears twice in the order").
Result<std::vector<uint32_t>> parseOrderText(std::string_view text, const std::string &name,
                                             size_t numVariables);
Result<std::vector<uint32_t>> readOrderFile(const std::string &path, size_t numVariables);

} // namespace zbddc
