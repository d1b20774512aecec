// Random well-formed ZBDDs and a brute-force enumeration of a ZBDD's family of sets, independent
// of the reader and the lowering under test.
#pragma once

#include "compiler/frontends/zdd/zdd_model.h"

#include <functional>
#include <random>
#include <set>
#include <vector>

namespace zbddc::testing {

using Family = std::set<std::set<uint32_t>>;

// The family of sets a ZBDD id denotes, by the definition: F(v, lo, hi) = F(lo) ∪ {s ∪ {v} : s ∈ F(hi)}.
inline Family familyOf(const ZddModel &m, uint32_t id) {
    if (id == kZddEmpty)
        return {};
    if (id == kZddBase)
        return {{}};
    const ZddNode &n = m.node(id);
    Family f = familyOf(m, n.lo);
    for (std::set<uint32_t> s : familyOf(m, n.hi)) {
        s.insert(n.var);
        f.insert(s);
    }
    return f;
}

// Σ over the family's sets of Π x[v]: the multi-linear function, evaluated term by term.
inline double bruteForceMlf(const ZddModel &m, uint32_t root, const std::vector<double> &x) {
    double sum = 0;
    for (const auto &term : familyOf(m, root)) {
        double p = 1;
        for (uint32_t v : term)
            p *= x[v];
        sum += p;
    }
    return sum;
}

// A random reduced-enough ZBDD over `vars` free inputs with about `nodes` nodes and one root.
inline ZddModel randomZdd(std::mt19937 &rng, uint32_t vars, uint32_t nodes) {
    ZddModel m;
    for (uint32_t v = 0; v < vars; ++v)
        m.vars.push_back({InputKind::Free, kNone, kNone, 0.0, ""});
    // Build bottom-up: variables from the last to the first so children have larger variables.
    std::vector<std::pair<uint32_t, uint32_t>> made; // (id, var)
    for (uint32_t i = 0; i < nodes; ++i) {
        const uint32_t var = vars - 1 - std::min<uint32_t>(vars - 1, i * vars / std::max<uint32_t>(1, nodes));
        auto pick = [&](bool allowEmpty) -> uint32_t {
            std::vector<uint32_t> options{kZddBase};
            if (allowEmpty)
                options.push_back(kZddEmpty);
            for (auto [id, v] : made)
                if (v > var)
                    options.push_back(id);
            return options[std::uniform_int_distribution<size_t>(0, options.size() - 1)(rng)];
        };
        const uint32_t lo = pick(true), hi = pick(false);
        m.nodes.push_back({var, lo, hi});
        made.push_back({ZddModel::idOf(m.nodes.size() - 1), var});
    }
    m.roots.push_back(ZddModel::idOf(m.nodes.size() - 1));
    m.rootNames.push_back("f");
    return m;
}

} // namespace zbddc::testing
