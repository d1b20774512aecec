// Helpers of the junction-tree tests: small random factor sets and brute-force oracles that share
// no code with compiler/junction_tree (subset enumeration, std::set adjacency).
#pragma once

#include "compiler/junction_tree/junction_tree.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <random>
#include <set>
#include <vector>

namespace zbddc::testing {

struct Factors {
    std::vector<uint32_t> domains;
    std::vector<std::vector<uint32_t>> scopes;
};

// A random Bayesian network's families: variable x (in a shuffled topological order) takes up to
// maxParents parents among the variables before it.
inline Factors randomFamilies(std::mt19937 &rng, uint32_t n, uint32_t maxParents,
                              uint32_t maxDomain) {
    Factors f;
    std::vector<uint32_t> label(n);
    for (uint32_t v = 0; v < n; ++v)
        label[v] = v;
    std::shuffle(label.begin(), label.end(), rng);
    for (uint32_t v = 0; v < n; ++v)
        f.domains.push_back(1 + rng() % maxDomain);
    f.scopes.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
        std::set<uint32_t> family{label[i]};
        const uint32_t parents = i == 0 ? 0 : rng() % (std::min(i, maxParents) + 1);
        while (family.size() < parents + 1)
            family.insert(label[rng() % i]);
        f.scopes[label[i]].assign(family.begin(), family.end());
    }
    return f;
}

// Undirected adjacency matrix of the factors' interaction graph.
inline std::vector<std::vector<bool>> interactionMatrix(const Factors &f) {
    const size_t n = f.domains.size();
    std::vector<std::vector<bool>> adj(n, std::vector<bool>(n, false));
    for (const auto &s : f.scopes)
        for (uint32_t a : s)
            for (uint32_t b : s)
                if (a != b)
                    adj[a][b] = true;
    return adj;
}

inline std::vector<uint32_t> members(uint32_t mask, size_t n) {
    std::vector<uint32_t> out;
    for (uint32_t v = 0; v < n; ++v)
        if (mask >> v & 1)
            out.push_back(v);
    return out;
}

// Chordal iff no vertex set of four or more induces a cycle (connected, every degree 2).
inline bool chordalByEnumeration(const std::vector<std::vector<bool>> &adj) {
    const size_t n = adj.size();
    for (uint32_t mask = 0; mask < (1u << n); ++mask) {
        const auto s = members(mask, n);
        if (s.size() < 4)
            continue;
        bool degreesTwo = true;
        for (uint32_t a : s) {
            int degree = 0;
            for (uint32_t b : s)
                degree += adj[a][b];
            degreesTwo &= degree == 2;
        }
        if (!degreesTwo)
            continue;
        std::set<uint32_t> reached{s[0]};
        std::vector<uint32_t> stack{s[0]};
        while (!stack.empty()) {
            const uint32_t a = stack.back();
            stack.pop_back();
            for (uint32_t b : s)
                if (adj[a][b] && reached.insert(b).second)
                    stack.push_back(b);
        }
        if (reached.size() == s.size())
            return false; // a chordless cycle
    }
    return true;
}

// Every maximal clique, each ascending, the list sorted.
inline std::vector<std::vector<uint32_t>>
maximalCliquesByEnumeration(const std::vector<std::vector<bool>> &adj) {
    const size_t n = adj.size();
    auto isClique = [&](const std::vector<uint32_t> &s) {
        for (uint32_t a : s)
            for (uint32_t b : s)
                if (a != b && !adj[a][b])
                    return false;
        return true;
    };
    std::vector<std::vector<uint32_t>> out;
    for (uint32_t mask = 1; mask < (1u << n); ++mask) {
        const auto s = members(mask, n);
        if (!isClique(s))
            continue;
        bool maximal = true;
        for (uint32_t v = 0; v < n && maximal; ++v)
            if (!(mask >> v & 1)) {
                auto t = s;
                t.push_back(v);
                maximal = !isClique(t);
            }
        if (maximal)
            out.push_back(s);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// The junction tree's own graph: an edge wherever two variables share a clique.
inline std::vector<std::vector<bool>> cliqueGraph(const JunctionTree &jt) {
    const size_t n = jt.numVariables();
    std::vector<std::vector<bool>> adj(n, std::vector<bool>(n, false));
    for (uint32_t c = 0; c < jt.numCliques(); ++c)
        for (uint32_t a : jt.clique(c))
            for (uint32_t b : jt.clique(c))
                if (a != b)
                    adj[a][b] = true;
    return adj;
}

inline std::vector<std::vector<uint32_t>> sortedCliques(const JunctionTree &jt) {
    std::vector<std::vector<uint32_t>> out;
    for (uint32_t c = 0; c < jt.numCliques(); ++c)
        out.emplace_back(jt.clique(c).begin(), jt.clique(c).end());
    std::sort(out.begin(), out.end());
    return out;
}

inline double product(const std::vector<uint32_t> &domains, const std::vector<uint32_t> &vars) {
    double p = 1;
    for (uint32_t v : vars)
        p *= domains[v];
    return p;
}

inline std::filesystem::path benchmarkNetworks() {
    return std::filesystem::path(ZBDDC_BENCHMARKS_DIR) / "bn";
}

} // namespace zbddc::testing
