// Models of the loopy BP tests (runtime/loopy): random polytrees, where BP is exact, and
// evidence sampled from a network.
#pragma once

#include "compiler/frontends/bn/bayes_net.h"
#include "tests/support/bn_elimination.h"

#include <random>
#include <string>
#include <vector>

namespace zbddc::testing {

// A polytree (the skeleton a forest, so the factor graph is a tree): each variable takes up to
// three parents from earlier variables, each from a different connected component. Rows random,
// bounded away from zero.
inline BayesNet randomPolytree(std::mt19937 &rng, size_t n, size_t maxParents) {
    BayesNet net;
    net.file = "polytree";
    std::vector<uint32_t> component(n);
    for (uint32_t v = 0; v < n; ++v) {
        component[v] = v;
        BnVariable var;
        var.name = "V" + std::to_string(v);
        for (size_t s = 0, k = 2 + rng() % 3; s < k; ++s)
            var.states.push_back("s" + std::to_string(s));
        for (uint32_t tries = 0; v > 0 && tries < 4 && var.parents.size() < maxParents; ++tries) {
            const uint32_t u = static_cast<uint32_t>(rng() % v);
            const uint32_t cu = component[u];
            if (cu == v)
                continue; // already joined through another parent
            var.parents.push_back(u);
            for (uint32_t &c : component)
                if (c == cu)
                    c = v;
        }
        size_t rows = 1;
        for (uint32_t u : var.parents)
            rows *= net.variables[u].states.size();
        std::uniform_real_distribution<double> w(0.05, 1.0);
        for (size_t r = 0; r < rows; ++r) {
            std::vector<double> row(var.states.size());
            double sum = 0;
            for (double &p : row)
                sum += p = w(rng);
            for (double p : row)
                var.cpt.push_back(p / sum);
        }
        net.variables.push_back(std::move(var));
    }
    return net;
}

inline std::vector<int> evidenceFromSample(const BayesNet &net, std::mt19937 &rng, unsigned oneIn) {
    const std::vector<uint32_t> x = ancestralSample(net, rng);
    std::vector<int> e(x.size(), -1);
    for (size_t v = 0; v < x.size(); ++v)
        if (rng() % oneIn == 0)
            e[v] = static_cast<int>(x[v]);
    return e;
}

// A polytree of 4 to 12 variables for trial `trial` of a loop: a chain every third trial.
inline BayesNet trialPolytree(std::mt19937 &rng, int trial) {
    return randomPolytree(rng, 4 + rng() % 9, trial % 3 == 0 ? 1 : 3);
}

// `count` cases sampled from `net` (evidenceFromSample, one variable in three observed), as the
// tests' variable elimination reads them and as the runtime does.
struct SampledCases {
    std::vector<std::vector<int>> evidence;
    std::vector<Evidence> cases;
};

inline SampledCases sampledCases(const BayesNet &net, std::mt19937 &rng, size_t count) {
    SampledCases s;
    for (size_t c = 0; c < count; ++c) {
        s.evidence.push_back(evidenceFromSample(net, rng, 3));
        s.cases.push_back(runtimeEvidence(s.evidence.back()));
    }
    return s;
}

} // namespace zbddc::testing
