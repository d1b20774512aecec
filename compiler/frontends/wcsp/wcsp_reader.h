// Reader for toulbar2's .wcsp format (docs/formats/wcsp.md): a header with the upper bound
// ("top"), domain sizes, then table cost functions with a default cost and explicit tuples.
// Global cost functions (default cost -1 followed by a keyword) are rejected.
#pragma once

#include "compiler/frontends/wcsp/cost_network.h"

#include <string>
#include <string_view>

namespace zbddc {

// `name` is used in messages ("name:line: ...").
Result<CostNetwork> parseWcsp(std::string_view text, const std::string &name);

} // namespace zbddc
