// Tiny random Bayesian networks and the brute-force oracle of their queries: every joint
// assignment enumerated, probabilities straight from the CPTs (no code shared with any route).
#pragma once

#include "compiler/frontends/bn/bayes_net.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace zbddc::testing {

// `n` variables of 2-4 states, up to 3 parents each in a shuffled CPT order and a shuffled file
// order; rows deterministic (a single 1), with repeated parameters, or random with zeros.
inline BayesNet randomBayesNet(std::mt19937 &rng, size_t n) {
    BayesNet net;
    net.file = "random";
    for (size_t v = 0; v < n; ++v) {
        BnVariable var;
        var.name = "V" + std::to_string(v);
        const size_t k = 2 + rng() % 3;
        for (size_t s = 0; s < k; ++s)
            var.states.push_back("s" + std::to_string(s));
        // Parents among earlier variables, up to 3, in a shuffled CPT order.
        for (uint32_t u = 0; u < v; ++u)
            if (var.parents.size() < 3 && rng() % 3 == 0)
                var.parents.push_back(u);
        std::shuffle(var.parents.begin(), var.parents.end(), rng);
        net.variables.push_back(std::move(var));
    }
    // Shuffle the file order so that parents may come after their children in the file.
    std::vector<uint32_t> perm(n);
    for (uint32_t v = 0; v < n; ++v)
        perm[v] = v;
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<BnVariable> shuffled(n);
    for (uint32_t v = 0; v < n; ++v) {
        for (uint32_t &u : net.variables[v].parents)
            u = perm[u];
        shuffled[perm[v]] = std::move(net.variables[v]);
    }
    net.variables = std::move(shuffled);
    for (uint32_t v = 0; v < n; ++v) {
        BnVariable &var = net.variables[v];
        const size_t rows = net.rowCount(v), k = var.states.size();
        const double shared[] = {0.25, 0.5}; // repeated parameters, also across rows
        for (size_t r = 0; r < rows; ++r) {
            const int kind = static_cast<int>(rng() % 4);
            for (size_t x = 0; x < k; ++x) {
                double p;
                if (kind == 0) // deterministic row: one 1, the rest 0
                    p = x == r % k ? 1.0 : 0.0;
                else if (kind == 1 && k == 2)
                    p = shared[0] * (x == 0 ? 1 : 3);
                else if (kind == 2 && k == 2)
                    p = shared[1];
                else
                    p = 0.05 + std::uniform_real_distribution<double>(0, 1)(rng);
                var.cpt.push_back(p);
            }
            if (kind == 3) {
                double sum = 0;
                for (size_t x = 0; x < k; ++x)
                    sum += var.cpt[r * k + x];
                for (size_t x = 0; x < k; ++x)
                    var.cpt[r * k + x] /= sum;
                if (rng() % 2)
                    var.cpt[r * k + rng() % k] = 0.0; // a zero removes terms
            }
        }
    }
    return net;
}

struct BruteForceAnswers {
    double probability = 0;                     // P(e)
    std::vector<std::vector<double>> marginals; // P(X = x | e); empty where P(e) = 0
    double mpeValue = 0;                        // max_x P(x, e)
};

// Evidence: a state per variable, or -1 where unobserved.
inline BruteForceAnswers bruteForceQueries(const BayesNet &net, const std::vector<int> &e) {
    const size_t n = net.variables.size();
    BruteForceAnswers out;
    std::vector<std::vector<double>> joint(n);
    for (size_t v = 0; v < n; ++v)
        joint[v].assign(net.variables[v].states.size(), 0.0);
    std::vector<size_t> x(n, 0);
    for (;;) {
        bool consistent = true;
        for (size_t v = 0; v < n && consistent; ++v)
            consistent = e[v] < 0 || static_cast<size_t>(e[v]) == x[v];
        if (consistent) {
            double p = 1;
            for (size_t v = 0; v < n; ++v) {
                const BnVariable &var = net.variables[v];
                size_t row = 0;
                for (uint32_t u : var.parents)
                    row = row * net.variables[u].states.size() + x[u];
                p *= var.cpt[row * var.states.size() + x[v]];
            }
            out.probability += p;
            out.mpeValue = std::max(out.mpeValue, p);
            for (size_t v = 0; v < n; ++v)
                joint[v][x[v]] += p;
        }
        size_t v = 0;
        while (v < n && ++x[v] == net.variables[v].states.size())
            x[v++] = 0;
        if (v == n)
            break;
    }
    if (out.probability > 0)
        for (auto &m : joint) {
            for (double &p : m)
                p /= out.probability;
            out.marginals.push_back(m);
        }
    return out;
}

} // namespace zbddc::testing
