// The tests' own variable elimination over a Bayesian network's CPTs, and the oracles built on it:
// P(e) and max_x P(x, e) (each step eliminating the variable whose bucket's product is smallest),
// the joint probability of a full assignment, and ancestral samples (so evidence taken from them
// has P(e) > 0). It shares no code with the ZBDD or junction-tree routes; linear doubles, so use
// it where P(e) stays above 1e-300.
#pragma once

#include "compiler/frontends/bn/bayes_net.h"
#include "runtime/evidence.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace zbddc::testing {

// A table over `vars` (first variable slowest).
struct Factor {
    std::vector<uint32_t> vars;
    std::vector<double> table;
};

// Stride of each variable of `all` in f's table (0 where f does not hold it).
inline std::vector<size_t> strides(const Factor &f, const std::vector<uint32_t> &all,
                                   const BayesNet &net) {
    std::vector<size_t> out(all.size(), 0);
    size_t stride = 1;
    for (size_t i = f.vars.size(); i-- > 0;) {
        for (size_t j = 0; j < all.size(); ++j)
            if (all[j] == f.vars[i])
                out[j] = stride;
        stride *= net.variables[f.vars[i]].states.size();
    }
    return out;
}

// How a variable leaves the product: summed out (PR, marginals) or maximised out (MPE value).
enum class Eliminate { Sum, Max };

// Σ (or max) over `v` of the product of `factors`, as one factor over the other variables
// involved.
inline Factor multiplyAndEliminate(const std::vector<Factor> &factors, uint32_t v,
                                   const BayesNet &net, Eliminate how) {
    Factor out;
    for (const Factor &f : factors)
        for (uint32_t u : f.vars)
            if (u != v && std::find(out.vars.begin(), out.vars.end(), u) == out.vars.end())
                out.vars.push_back(u);
    std::vector<uint32_t> all = out.vars;
    all.push_back(v);
    size_t size = 1;
    for (uint32_t u : out.vars)
        size *= net.variables[u].states.size();
    out.table.assign(size, 0.0);
    std::vector<std::vector<size_t>> stride;
    for (const Factor &f : factors)
        stride.push_back(strides(f, all, net));
    stride.push_back(strides(out, all, net));
    std::vector<size_t> x(all.size(), 0), offset(stride.size(), 0);
    for (;;) { // every joint state of `all`, last fastest, offsets kept incrementally
        double p = 1;
        for (size_t f = 0; f < factors.size(); ++f)
            p *= factors[f].table[offset[f]];
        double &slot = out.table[offset.back()];
        slot = how == Eliminate::Sum ? slot + p : std::max(slot, p); // tables are >= 0
        size_t j = all.size();
        for (; j > 0; --j) {
            const size_t k = net.variables[all[j - 1]].states.size();
            if (++x[j - 1] < k) {
                for (size_t f = 0; f < stride.size(); ++f)
                    offset[f] += stride[f][j - 1];
                break;
            }
            x[j - 1] = 0;
            for (size_t f = 0; f < stride.size(); ++f)
                offset[f] -= stride[f][j - 1] * (k - 1);
        }
        if (j == 0)
            return out;
    }
}

// P(e) (Sum) or max_x P(x, e) (Max) by variable elimination, each step eliminating the variable
// whose bucket's product has the fewest entries. Evidence: state per variable, or -1.
inline double eliminationValue(const BayesNet &net, const std::vector<int> &e, Eliminate how) {
    std::vector<Factor> factors;
    for (uint32_t v = 0; v < net.variables.size(); ++v) {
        const BnVariable &var = net.variables[v];
        Factor f{var.parents, var.cpt};
        f.vars.push_back(v); // the CPT layout: parents in order, then the variable fastest
        factors.push_back(std::move(f));
        if (e[v] >= 0) { // the evidence indicator as a factor of its own
            Factor ind{{v}, std::vector<double>(var.states.size(), 0.0)};
            ind.table[e[v]] = 1.0;
            factors.push_back(std::move(ind));
        }
    }
    std::vector<char> gone(net.variables.size(), 0);
    for (size_t step = 0; step < net.variables.size(); ++step) {
        uint32_t best = UINT32_MAX;
        double bestSize = 0;
        for (uint32_t v = 0; v < net.variables.size(); ++v) {
            if (gone[v])
                continue;
            std::vector<uint32_t> scope;
            for (const Factor &f : factors)
                if (std::find(f.vars.begin(), f.vars.end(), v) != f.vars.end())
                    for (uint32_t u : f.vars)
                        if (std::find(scope.begin(), scope.end(), u) == scope.end())
                            scope.push_back(u);
            double size = 1;
            for (uint32_t u : scope)
                size *= net.variables[u].states.size();
            if (best == UINT32_MAX || size < bestSize)
                best = v, bestSize = size;
        }
        gone[best] = 1;
        std::vector<Factor> bucket, rest;
        for (Factor &f : factors)
            (std::find(f.vars.begin(), f.vars.end(), best) != f.vars.end() ? bucket : rest)
                .push_back(std::move(f));
        rest.push_back(multiplyAndEliminate(bucket, best, net, how));
        factors = std::move(rest);
    }
    double p = 1;
    for (const Factor &f : factors)
        p *= f.table[0];
    return p;
}

inline Evidence runtimeEvidence(const std::vector<int> &e) {
    Evidence ev;
    for (int s : e)
        ev.states.push_back(s < 0 ? kNone : static_cast<uint32_t>(s));
    return ev;
}

// P(x) of a full assignment, straight from the CPTs (layout: parents in order, variable fastest).
inline double jointProbability(const BayesNet &net, const std::vector<uint32_t> &x) {
    double p = 1;
    for (uint32_t v = 0; v < net.variables.size(); ++v) {
        const BnVariable &var = net.variables[v];
        size_t row = 0;
        for (uint32_t u : var.parents)
            row = row * net.variables[u].states.size() + x[u];
        p *= var.cpt[row * var.states.size() + x[v]];
    }
    return p;
}

// A joint state drawn from the network (each variable from its CPT row once its parents are
// drawn), so that evidence taken from it has a positive probability.
inline std::vector<uint32_t> ancestralSample(const BayesNet &net, std::mt19937 &rng) {
    const size_t n = net.variables.size();
    std::vector<uint32_t> x(n, 0);
    std::vector<char> drawn(n, 0);
    for (size_t done = 0; done < n;) { // passes over the file order until all are drawn
        for (uint32_t v = 0; v < n; ++v) {
            const BnVariable &var = net.variables[v];
            if (drawn[v] || std::any_of(var.parents.begin(), var.parents.end(),
                                        [&](uint32_t p) { return !drawn[p]; }))
                continue;
            size_t row = 0;
            for (uint32_t u : var.parents)
                row = row * net.variables[u].states.size() + x[u];
            double r = std::uniform_real_distribution<double>(0.0, 1.0)(rng), acc = 0;
            const size_t k = var.states.size();
            x[v] = static_cast<uint32_t>(k - 1);
            for (size_t s = 0; s < k; ++s) { // the last state with p > 0 absorbs rounding
                acc += var.cpt[row * k + s];
                if (var.cpt[row * k + s] > 0 && r < acc) {
                    x[v] = static_cast<uint32_t>(s);
                    break;
                }
            }
            while (var.cpt[row * k + x[v]] == 0 && x[v] > 0)
                --x[v];
            drawn[v] = 1;
            ++done;
        }
    }
    return x;
}

} // namespace zbddc::testing
