#include "compiler/frontends/wcsp/uai_cost_reader.h"

#include "compiler/frontends/uai/uai_reader.h"

#include <cmath>

namespace zbddc {

Result<CostNetwork> parseUaiAsCostNetwork(std::string_view text, const std::string &name) {
    auto model = parseUai(text, name);
    if (!model)
        return model.error();
    CostNetwork net;
    net.integerCosts = false;
    net.name = model->type;
    net.domainSizes = std::move(model->domainSizes);
    net.functions.reserve(model->factors.size());
    for (UaiFactor &factor : model->factors) {
        CostFunction f;
        f.scope = std::move(factor.scope);
        f.line = factor.scopeLine;
        f.costs.reserve(factor.table.size());
        for (double p : factor.table)
            f.costs.push_back(p == 0 ? kForbidden : -std::log(p));
        net.functions.push_back(std::move(f));
    }
    return net;
}

} // namespace zbddc
