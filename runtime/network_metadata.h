// The metadata text of a network .so (zbdd_network_metadata in include/zbdd_network.h; format in
// docs/c-api.md): which route compiled it, a few facts about it, and the variables with their
// states, names percent-encoded as in a model.so's metadata.
#pragma once

#include "ir/circuit.h" // Variable
#include "ir/result.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zbddc {

struct NetworkMetadata {
    std::string route; // "jt" (a network.so) or "mlf" (a model.so)
    // `key value` records between the route and the variables, e.g. {"batch", "16"}.
    std::vector<std::pair<std::string, std::string>> facts;
    std::vector<Variable> variables;
};

std::string writeNetworkMetadata(const NetworkMetadata &m);
// `where` names the text in messages (`where:line: ...`).
Result<NetworkMetadata> parseNetworkMetadata(std::string_view text, const std::string &where);

} // namespace zbddc
