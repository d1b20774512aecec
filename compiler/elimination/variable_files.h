// The files of whole numbers, one per variable, that a run reads beside its model: separated by
// white space, `#` comments, read whole by parseTextFile. `name` is the file name errors carry
// ("FILE:LINE: variable 3 appears twice in the order").
#pragma once

#include "ir/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zbddc {

// Elimination order files (`--order FILE`): variable indices, each variable exactly once,
// eliminated first to last.
Result<std::vector<uint32_t>> parseOrderText(std::string_view text, const std::string &name,
                                             size_t numVariables);
Result<std::vector<uint32_t>> readOrderFile(const std::string &path, size_t numVariables);

// Agent files (`--agents FILE`): for each variable in turn, the index of the agent that owns it.
// Agents are numbered from 0 and every number up to the largest owns at least one variable.
Result<std::vector<uint32_t>> parseAgentText(std::string_view text, const std::string &name,
                                             size_t numVariables);
Result<std::vector<uint32_t>> readAgentFile(const std::string &path, size_t numVariables);

} // namespace zbddc
