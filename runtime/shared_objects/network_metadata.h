// The metadata text of a network .so (zbdd_network_metadata in include/zbdd_network.h; format in
// docs/c-api.md, grammar in ir/so_metadata.h): which route compiled it, a few facts about it, and
// the variables with their states.
#pragma once

#include "ir/so_metadata.h"

#include <string>
#include <string_view>
#include <vector>

namespace zbddc {

struct NetworkMetadata {
    std::string route; // "jt" (a network.so) or "mlf" (a model.so)
    // `key value` records between the route and the variables, e.g. {"batch", "16"}.
    MetadataFacts facts;
    std::vector<Variable> variables;
};

std::string writeNetworkMetadata(const NetworkMetadata &m);
// `where` names the text in messages (`where:line: ...`).
Result<NetworkMetadata> parseNetworkMetadata(std::string_view text, const std::string &where);

} // namespace zbddc
