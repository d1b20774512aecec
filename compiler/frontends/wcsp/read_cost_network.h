// Reads a cost network from a file, choosing the reader by extension: .wcsp (toulbar2) or .uai
// (UAI MARKOV/BAYES as MPE).
#pragma once

#include "compiler/frontends/wcsp/cost_network.h"

#include <string>

namespace zbddc {

Result<CostNetwork> readCostNetworkFile(const std::string &path);

} // namespace zbddc
