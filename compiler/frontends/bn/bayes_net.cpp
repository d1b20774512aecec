#include "compiler/frontends/bn/bayes_net.h"

#include "ir/text_lines.h"
#include "support/strings.h"

#include <cmath>
#include <cstdio>
#include <set>

namespace zbddc {

uint32_t BayesNet::find(const std::string &name) const {
    if (variablesIndexed_ > variables.size()) { // variables were removed: start again
        variableIndex_.clear();
        variablesIndexed_ = 0;
    }
    for (; variablesIndexed_ < variables.size(); ++variablesIndexed_)
        variableIndex_.emplace(variables[variablesIndexed_].name,
                               static_cast<uint32_t>(variablesIndexed_));
    const auto it = variableIndex_.find(name);
    return it == variableIndex_.end() ? UINT32_MAX : it->second;
}

uint32_t BayesNet::findState(uint32_t v, std::string_view name) const {
    if (stateIndex_.size() < variables.size())
        stateIndex_.resize(variables.size());
    auto &index = stateIndex_[v];
    const std::vector<std::string> &states = variables[v].states;
    if (index.size() != states.size()) {
        index.clear();
        for (uint32_t s = 0; s < states.size(); ++s)
            index.emplace(states[s], s);
    }
    const auto it = index.find(std::string(name));
    return it == index.end() ? UINT32_MAX : it->second;
}

size_t BayesNet::rowCount(uint32_t v) const {
    size_t rows = 1;
    for (uint32_t p : variables[v].parents)
        if (__builtin_mul_overflow(rows, variables[p].states.size(), &rows))
            return SIZE_MAX;
    return rows;
}

std::string cptTooLarge(const BayesNet &net, uint32_t v) {
    const BnVariable &var = net.variables[v];
    double log2 = std::log2(static_cast<double>(var.states.size()));
    for (uint32_t p : var.parents)
        log2 += std::log2(static_cast<double>(net.variables[p].states.size()));
    return "the CPT of '" + var.name + "' (" + std::to_string(var.parents.size()) +
           " parents) has 2^" + std::to_string(static_cast<int>(std::ceil(log2))) +
           " entries, more than the 2^32 zbddc holds";
}

size_t BayesNet::cptRow(uint32_t v, std::span<const uint32_t> x) const {
    size_t row = 0;
    for (uint32_t u : variables[v].parents)
        row = row * variables[u].states.size() + x[u];
    return row;
}

size_t BayesNet::cptEntries(uint32_t v) const {
    size_t entries = 0;
    if (__builtin_mul_overflow(rowCount(v), variables[v].states.size(), &entries) ||
        entries > kMaxCptEntries)
        return SIZE_MAX;
    return entries;
}

std::vector<uint32_t> fileTopologicalOrder(const BayesNet &net) {
    const size_t n = net.variables.size();
    std::vector<uint32_t> pendingParents(n), order;
    std::vector<std::vector<uint32_t>> children(n);
    std::set<uint32_t> ready;
    for (uint32_t v = 0; v < n; ++v) {
        pendingParents[v] = static_cast<uint32_t>(net.variables[v].parents.size());
        for (uint32_t p : net.variables[v].parents)
            children[p].push_back(v);
        if (pendingParents[v] == 0)
            ready.insert(v);
    }
    while (!ready.empty()) {
        const uint32_t v = *ready.begin();
        ready.erase(ready.begin());
        order.push_back(v);
        for (uint32_t c : children[v])
            if (--pendingParents[c] == 0)
                ready.insert(c);
    }
    return order;
}

namespace {
// Depth-first search for a directed cycle along parent edges; returns it as names "A -> B -> A".
std::string findCycle(const BayesNet &net, uint32_t &start) {
    const size_t n = net.variables.size();
    std::vector<uint8_t> color(n, 0); // 0 new, 1 on the stack, 2 done
    std::vector<uint32_t> stack, edge;
    for (uint32_t root = 0; root < n; ++root) {
        if (color[root])
            continue;
        stack = {root};
        edge = {0};
        color[root] = 1;
        while (!stack.empty()) {
            const uint32_t v = stack.back();
            const auto &parents = net.variables[v].parents;
            if (edge.back() == parents.size()) {
                color[v] = 2;
                stack.pop_back();
                edge.pop_back();
                continue;
            }
            const uint32_t p = parents[edge.back()++];
            if (color[p] == 1) { // back edge: the cycle is the stack from p upwards
                std::string text;
                size_t i = stack.size();
                while (stack[i - 1] != p)
                    --i;
                for (size_t k = stack.size(); k-- > i - 1;)
                    text += net.variables[stack[k]].name + " -> ";
                start = v;
                return text + net.variables[v].name;
            }
            if (color[p] == 0) {
                color[p] = 1;
                stack.push_back(p);
                edge.push_back(0);
            }
        }
    }
    return {};
}
} // namespace

Status checkNetwork(BayesNet &net, const ReadOptions &options) {
    if (net.variables.empty())
        return errorAt(net.file, 1, "no variables: the network is empty");
    for (uint32_t v = 0; v < net.variables.size(); ++v) {
        const BnVariable &var = net.variables[v];
        if (var.states.empty())
            return errorAt(net.file, var.line, "variable '" + var.name + "' has no states");
        // A parent listed twice would make its CPT's rows disagree with every format's layout.
        for (size_t i = 0; i < var.parents.size(); ++i)
            for (size_t j = 0; j < i; ++j)
                if (var.parents[i] == var.parents[j])
                    return errorAt(net.file, var.line,
                                   "parent '" + net.variables[var.parents[i]].name + "' of '" +
                                       var.name + "' listed twice");
        if (net.cptEntries(v) == SIZE_MAX)
            return errorAt(net.file, var.line, cptTooLarge(net, v));
        const size_t rows = net.rowCount(v);
        if (var.cpt.size() != rows * var.states.size())
            return errorAt(net.file, var.line,
                           "CPT of '" + var.name + "' has " + std::to_string(var.cpt.size()) +
                               " entries, expected " + std::to_string(rows * var.states.size()));
        for (size_t r = 0; r < rows; ++r) {
            double sum = 0;
            for (size_t x = 0; x < var.states.size(); ++x) {
                const double p = var.cpt[r * var.states.size() + x];
                if (!(p >= 0.0 && p <= 1.0))
                    return errorAt(net.file, var.line,
                                   "CPT of '" + var.name + "' holds " + std::to_string(p) +
                                       ", not a probability");
                sum += p;
            }
            if (std::fabs(sum - 1.0) > options.rowTolerance) {
                char buf[64];
                std::snprintf(buf, sizeof buf, "%.9g", sum);
                Diagnostic d = errorAt(net.file, var.line,
                                       "CPT of '" + var.name + "': row " + std::to_string(r) +
                                           " sums to " + buf + ", not 1");
                if (options.strict)
                    return d;
                net.warnings.push_back(std::move(d));
            }
        }
    }
    uint32_t at = 0;
    if (std::string cycle = findCycle(net, at); !cycle.empty())
        return errorAt(net.file, net.variables[at].line, "cycle in the network: " + cycle);
    return Ok{};
}

Result<BayesNet> readNetworkFile(const std::string &path, const ReadOptions &options) {
    Result<BayesNet> (*parse)(std::string_view, const std::string &) = nullptr;
    if (endsWith(path, ".bif"))
        parse = parseBif;
    else if (endsWith(path, ".xml") || endsWith(path, ".xmlbif"))
        parse = parseXmlBif;
    else if (endsWith(path, ".net"))
        parse = parseHuginNet;
    else if (endsWith(path, ".uai"))
        parse = parseUaiBayes;
    else if (endsWith(path, ".so"))
        return errorAt(path, 0,
                       "a compiled .so holds no network to read: give the network's "
                       "own file (.bif, .xmlbif, .xml, .net or .uai)");
    else
        return errorAt(path, 0,
                       "unknown network format (expected .bif, .xmlbif, .xml, .net or .uai)");
    auto text = readTextFile(path);
    if (!text)
        return text.error();
    auto net = parse(*text, path);
    if (!net)
        return net.error();
    net->file = path;
    if (auto st = checkNetwork(*net, options); !st)
        return st.error();
    return net;
}

} // namespace zbddc
