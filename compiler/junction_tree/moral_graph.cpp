#include "compiler/junction_tree/moral_graph.h"

#include <algorithm>

namespace zbddc {

std::vector<uint32_t> networkDomainSizes(const BayesNet &net) {
    std::vector<uint32_t> domains;
    domains.reserve(net.variables.size());
    for (const BnVariable &v : net.variables)
        domains.push_back(static_cast<uint32_t>(v.states.size()));
    return domains;
}

std::vector<std::vector<uint32_t>> familyScopes(const BayesNet &net) {
    std::vector<std::vector<uint32_t>> families;
    families.reserve(net.variables.size());
    for (uint32_t x = 0; x < net.variables.size(); ++x) {
        std::vector<uint32_t> family = net.variables[x].parents;
        family.push_back(x);
        std::sort(family.begin(), family.end());
        family.erase(std::unique(family.begin(), family.end()), family.end());
        families.push_back(std::move(family));
    }
    return families;
}

InteractionGraph moralGraph(const BayesNet &net) {
    return buildInteractionGraph(networkDomainSizes(net), familyScopes(net));
}

} // namespace zbddc
