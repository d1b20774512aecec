// UAI BAYES networks (the UAI inference competitions' format): docs/formats/uai.md. The shared
// structure comes from parseUai; here each factor becomes the CPT of its scope's last variable.
#include "compiler/frontends/bn/bayes_net.h"

#include "compiler/frontends/uai/uai_reader.h"

namespace zbddc {

Result<BayesNet> parseUaiBayes(std::string_view text, const std::string &file) {
    auto model = parseUai(text, file);
    if (!model)
        return model.error();
    if (model->type != "BAYES")
        return errorAt(file, 1, "a MARKOV network is not a Bayesian network (expected BAYES)");
    if (model->factors.size() != model->domainSizes.size())
        return errorAt(file, model->factorCountLine,
                       "a BAYES network has one function per variable: expected " +
                           std::to_string(model->domainSizes.size()) + ", found " +
                           std::to_string(model->factors.size()));
    // Every state is named, so a domain must be bounded by the file before names are made: a
    // variable's CPT holds at least one entry per state, and every table has been read by now.
    uint64_t entries = 0;
    for (const UaiFactor &factor : model->factors)
        entries += factor.table.size();
    for (size_t v = 0; v < model->domainSizes.size(); ++v)
        if (model->domainSizes[v] > entries)
            return errorAt(file, model->domainsLine,
                           "domain size " + std::to_string(model->domainSizes[v]) + " of variable " +
                               std::to_string(v) + " is more than the CPTs in the file hold (" +
                               std::to_string(entries) + " entries)");
    BayesNet net;
    net.file = file;
    for (size_t v = 0; v < model->domainSizes.size(); ++v) {
        BnVariable var;
        var.name = uaiVariableName(v);
        for (uint32_t s = 0; s < model->domainSizes[v]; ++s)
            var.states.push_back(std::to_string(s));
        net.variables.push_back(std::move(var));
    }
    std::vector<bool> hasCpt(net.variables.size(), false);
    for (UaiFactor &factor : model->factors) {
        if (factor.scope.empty())
            return errorAt(file, factor.scopeLine, "a BAYES function needs a child variable");
        // The last variable of a scope is the child, the others its parents in CPT order.
        const uint32_t child = factor.scope.back();
        if (hasCpt[child])
            return errorAt(file, factor.scopeLine,
                           "variable " + std::to_string(child) + " is the child of two functions");
        hasCpt[child] = true;
        BnVariable &var = net.variables[child];
        factor.scope.pop_back();
        var.parents = std::move(factor.scope);
        var.cpt = std::move(factor.table);
        var.line = factor.tableLine;
    }
    return net;
}

} // namespace zbddc
