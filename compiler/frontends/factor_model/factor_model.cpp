#include "compiler/frontends/factor_model/factor_model.h"

#include "compiler/frontends/uai/uai_reader.h"
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "ir/text_lines.h"
#include "support/strings.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace zbddc {

namespace {

std::vector<Variable> indexedVariables(const std::vector<uint32_t> &domainSizes,
                                       const std::vector<std::string> &names = {}) {
    std::vector<Variable> variables(domainSizes.size());
    for (size_t v = 0; v < domainSizes.size(); ++v) {
        variables[v].name = v < names.size() ? names[v] : uaiVariableName(v);
        for (uint32_t s = 0; s < domainSizes[v]; ++s)
            variables[v].states.push_back(std::to_string(s));
    }
    return variables;
}

// Divides a factor by its largest entry and returns that entry's log (a factor of zeros: 0, the
// model's Z is then 0 and stays so).
double scaleToMaxOne(std::vector<double> &table) {
    const double max = table.empty() ? 0 : *std::max_element(table.begin(), table.end());
    if (!(max > 0) || max == 1)
        return 0;
    for (double &p : table)
        p /= max;
    return std::log(max);
}

// A variable no factor holds still counts its states in Z: a factor of ones over it, so that
// every route sums it out (a tree's tables hold only the variables of some factor).
void coverEveryVariable(FactorModel &model) {
    std::vector<bool> held(model.numVariables(), false);
    for (const Factor &f : model.factors)
        for (uint32_t v : f.scope)
            held[v] = true;
    for (uint32_t v = 0; v < model.numVariables(); ++v)
        if (!held[v])
            model.factors.push_back({{v}, std::vector<double>(model.domainSizes[v], 1.0)});
}

FactorModel markovFactorModel(UaiModel &&uai) {
    FactorModel model;
    model.file = uai.file;
    model.kind = "MARKOV";
    model.variables = indexedVariables(uai.domainSizes);
    model.domainSizes = std::move(uai.domainSizes);
    model.factors.reserve(uai.factors.size());
    for (UaiFactor &f : uai.factors) {
        Factor factor;
        factor.scope = std::move(f.scope);
        factor.table = std::move(f.table);
        factor.line = f.tableLine;
        model.logScale += scaleToMaxOne(factor.table);
        model.factors.push_back(std::move(factor));
    }
    coverEveryVariable(model);
    return model;
}

// A cost function c as the factor exp(-c), scaled by its least cost (forbidden rows, and costs
// at or above the upper bound, are 0). A cost more than ~745 above its table's least underflows
// to 0: such a row weighs less than e^-745 of the table's best.
FactorModel costFactorModel(const CostNetwork &net, const std::string &file) {
    FactorModel model;
    model.file = file;
    model.kind = "WCSP";
    model.variables = indexedVariables(net.domainSizes, net.variableNames);
    model.domainSizes = net.domainSizes;
    for (const CostFunction &f : net.functions) {
        Factor factor;
        factor.scope = f.scope;
        factor.line = f.line;
        uint64_t rows = 1;
        for (uint32_t v : f.scope)
            rows *= net.domainSizes[v];
        std::vector<double> costs(rows);
        double least = std::numeric_limits<double>::infinity();
        for (uint64_t r = 0; r < rows; ++r) {
            const Cost c = f.costAtRow(r);
            costs[r] = net.feasible(c) ? net.costValue(c) : std::numeric_limits<double>::infinity();
            least = std::min(least, costs[r]);
        }
        factor.table.resize(rows);
        for (uint64_t r = 0; r < rows; ++r)
            factor.table[r] = std::isinf(costs[r]) ? 0 : std::exp(-(costs[r] - least));
        if (!std::isinf(least))
            model.logScale -= least;
        model.factors.push_back(std::move(factor));
    }
    coverEveryVariable(model);
    return model;
}

} // namespace

CostNetwork factorCostNetwork(const FactorModel &model) {
    CostNetwork net;
    net.name = model.kind;
    net.integerCosts = false;
    net.domainSizes = model.domainSizes;
    net.functions.reserve(model.factors.size());
    for (const Factor &factor : model.factors)
        net.functions.push_back(probabilityCosts(factor.scope, factor.table, factor.line));
    return net;
}

std::vector<std::vector<uint32_t>> FactorModel::sortedScopes() const {
    std::vector<std::vector<uint32_t>> scopes;
    scopes.reserve(factors.size());
    for (const Factor &f : factors) {
        std::vector<uint32_t> s = f.scope;
        std::sort(s.begin(), s.end());
        scopes.push_back(std::move(s));
    }
    return scopes;
}

FactorModel factorModelOf(const BayesNet &net) {
    FactorModel model;
    model.file = net.file;
    model.kind = "BAYES";
    model.warnings = net.warnings;
    model.factors.reserve(net.variables.size());
    for (uint32_t v = 0; v < net.variables.size(); ++v) {
        const BnVariable &x = net.variables[v];
        model.variables.push_back({x.name, x.states});
        model.domainSizes.push_back(static_cast<uint32_t>(x.states.size()));
        Factor f;
        f.scope = x.parents;
        f.scope.push_back(v);
        f.table = x.cpt;
        f.child = v;
        f.line = x.line;
        model.factors.push_back(std::move(f));
    }
    return model;
}

std::vector<uint8_t> factorRowsSumToOne(const FactorModel &model) {
    std::vector<uint8_t> one(model.factors.size(), 0);
    for (size_t i = 0; i < model.factors.size(); ++i) {
        const Factor &f = model.factors[i];
        if (f.child == kNoChild)
            continue;
        const size_t k = model.domainSizes[f.child];
        one[i] = 1;
        for (size_t row = 0; k && row < f.table.size() / k && one[i]; ++row) {
            double sum = 0;
            for (size_t s = 0; s < k; ++s)
                sum += f.table[row * k + s];
            one[i] = std::fabs(sum - 1) <= 1e-12;
        }
    }
    return one;
}

double logWeight(const FactorModel &model, std::span<const uint32_t> assignment) {
    double log = model.logScale;
    for (const Factor &f : model.factors) {
        uint64_t row = 0;
        for (uint32_t v : f.scope)
            row = row * model.domainSizes[v] + assignment[v];
        if (!(f.table[row] > 0))
            return -std::numeric_limits<double>::infinity();
        log += std::log(f.table[row]);
    }
    return log;
}

Result<FactorModel> parseUaiFactorModel(std::string_view text, const std::string &file,
                                        const ReadOptions &options) {
    auto uai = parseUai(text, file);
    if (!uai)
        return uai.error();
    if (uai->type == "MARKOV")
        return markovFactorModel(std::move(*uai));
    auto net = parseUaiBayes(text, file);
    if (!net)
        return net.error();
    net->file = file;
    if (Status st = checkNetwork(*net, options); !st)
        return st.error();
    return factorModelOf(*net);
}

Result<FactorModel> readFactorModelFile(const std::string &path, const ReadOptions &options) {
    if (endsWith(path, ".wcsp")) {
        auto net = readCostNetworkFile(path);
        if (!net)
            return net.error();
        return costFactorModel(*net, path);
    }
    if (endsWith(path, ".uai")) {
        auto text = readTextFile(path);
        if (!text)
            return text.error();
        return parseUaiFactorModel(*text, path, options);
    }
    auto net = readNetworkFile(path, options);
    if (!net)
        return net.error();
    return factorModelOf(*net);
}

} // namespace zbddc
