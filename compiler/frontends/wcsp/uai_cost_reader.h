// Reader for UAI MARKOV and BAYES files as optimisation problems: MPE is the assignment of least
// total cost when each table entry p becomes the cost -ln p (p = 0: forbidden). Format notes in
// docs/formats/uai-markov.md.
#pragma once

#include "compiler/frontends/wcsp/cost_network.h"

#include <string>
#include <string_view>

namespace zbddc {

Result<CostNetwork> parseUaiAsCostNetwork(std::string_view text, const std::string &name);

} // namespace zbddc
