// Agent files (`--agents FILE`): for each variable in turn, the index of the agent that owns it,
// separated by white space, `#` comments. Agents are numbered from 0 and every number up to the
// largest owns at least one variable.
#pragma once

#include "ir/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zbddc {

// `name` is the file name errors carry ("FILE:LINE: ...").
Result<std::vector<uint32_t>> parseAgentText(std::string_view text, const std::string &name,
                                             size_t numVariables);
Result<std::vector<uint32_t>> readAgentFile(const std::string &path, size_t numVariables);

} // namespace zbddc
