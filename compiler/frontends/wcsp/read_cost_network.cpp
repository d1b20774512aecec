#include "compiler/frontends/wcsp/read_cost_network.h"

#include "ir/text_lines.h"
#include "compiler/frontends/wcsp/uai_cost_reader.h"
#include "compiler/frontends/wcsp/wcsp_reader.h"
#include "support/strings.h"

namespace zbddc {

Result<CostNetwork> readCostNetworkFile(const std::string &path) {
    const bool wcsp = endsWith(path, ".wcsp");
    if (!wcsp && !endsWith(path, ".uai"))
        return errorAt(path, 0, "unknown cost network format (expected .wcsp or .uai)");
    auto text = readTextFile(path);
    if (!text)
        return text.error();
    return wcsp ? parseWcsp(*text, path) : parseUaiAsCostNetwork(*text, path);
}

} // namespace zbddc
