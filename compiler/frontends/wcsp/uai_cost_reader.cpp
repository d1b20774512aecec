#include "compiler/frontends/wcsp/uai_cost_reader.h"

#include "compiler/frontends/uai/uai_reader.h"

namespace zbddc {

Result<CostNetwork> parseUaiAsCostNetwork(std::string_view text, const std::string &name) {
    auto model = parseUai(text, name);
    if (!model)
        return model.error();
    CostNetwork net;
    net.integerCosts = false;
    net.name = model->type;
    net.domainSizes = std::move(model->domainSizes);
    for (size_t v = 0; v < net.domainSizes.size(); ++v)
        net.variableNames.push_back(uaiVariableName(v));
    net.functions.reserve(model->factors.size());
    for (UaiFactor &factor : model->factors)
        net.functions.push_back(
            probabilityCosts(std::move(factor.scope), factor.table, factor.scopeLine));
    return net;
}

} // namespace zbddc
