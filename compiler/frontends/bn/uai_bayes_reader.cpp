// UAI BAYES networks (the UAI inference competitions' format): docs/formats/uai.md.
#include "compiler/frontends/bn/bayes_net.h"

#include "compiler/frontends/text_lines.h"

namespace zbddc {

Result<BayesNet> parseUaiBayes(std::string_view text, const std::string &file) {
    TokenCursor in(text, file, '\0');
    BayesNet net;
    net.file = file;
    auto kind = in.token("'BAYES'");
    if (!kind)
        return kind.error();
    if (*kind != "BAYES")
        return in.fail(*kind == "MARKOV" ? "a MARKOV network is not a Bayesian network (expected BAYES)"
                                         : "expected 'BAYES', found '" + std::string(*kind) + "'");
    auto n = in.unsignedInt("number of variables", 1u << 24);
    if (!n)
        return n.error();
    for (uint64_t v = 0; v < *n; ++v) {
        auto d = in.unsignedInt("domain size", 1u << 20);
        if (!d)
            return d.error();
        if (*d == 0)
            return in.fail("variable " + std::to_string(v) + " has an empty domain");
        BnVariable var;
        var.name = "X" + std::to_string(v); // UAI variables have no names; see uai.md
        for (uint64_t s = 0; s < *d; ++s)
            var.states.push_back(std::to_string(s));
        net.variables.push_back(std::move(var));
    }
    auto m = in.unsignedInt("number of functions", *n);
    if (!m)
        return m.error();
    if (*m != *n)
        return in.fail("a BAYES network has one function per variable: expected " + std::to_string(*n) +
                       ", found " + std::to_string(*m));
    // Scopes: the last variable of each scope is the child, the others its parents in CPT order.
    std::vector<uint32_t> childOf(*m);
    std::vector<bool> hasCpt(*n, false);
    for (uint64_t f = 0; f < *m; ++f) {
        auto k = in.unsignedInt("scope size", *n);
        if (!k)
            return k.error();
        if (*k == 0)
            return in.fail("function " + std::to_string(f) + " has an empty scope");
        std::vector<uint32_t> scope;
        for (uint64_t i = 0; i < *k; ++i) {
            auto v = in.unsignedInt("variable index", *n - 1);
            if (!v)
                return v.error();
            for (uint32_t old : scope)
                if (old == *v)
                    return in.fail("variable " + std::to_string(*v) + " appears twice in a scope");
            scope.push_back(static_cast<uint32_t>(*v));
        }
        const uint32_t child = scope.back();
        if (hasCpt[child])
            return in.fail("variable " + std::to_string(child) + " is the child of two functions");
        hasCpt[child] = true;
        childOf[f] = child;
        scope.pop_back();
        net.variables[child].parents = std::move(scope);
        net.variables[child].line = in.line();
    }
    for (uint64_t f = 0; f < *m; ++f) {
        BnVariable &var = net.variables[childOf[f]];
        auto count = in.unsignedInt("table size");
        if (!count)
            return count.error();
        var.line = in.line();
        const size_t expected = net.rowCount(childOf[f]) * var.states.size();
        if (*count != expected)
            return in.fail("table of function " + std::to_string(f) + " has " + std::to_string(*count) +
                           " entries, expected " + std::to_string(expected));
        var.cpt.resize(expected);
        for (double &p : var.cpt) {
            auto x = in.number("probability");
            if (!x)
                return x.error();
            p = *x;
        }
    }
    if (!in.atEnd()) {
        auto extra = in.token("end of file");
        return in.fail("unexpected '" + std::string(extra ? *extra : "") + "' after the last table");
    }
    return net;
}

} // namespace zbddc
