// Small networks whose MPE ties, and the brute-force check of the MPE tie rule
// (pipeline/mpe_tie_break.h) on them, for the tests that set routes and devices against it
// (tests/pipeline/mpe_tie_rule*_test.cpp).
#pragma once

#include "compiler/frontends/bn/bayes_net.h"
#include "pipeline/pipeline.h"

#include "tests/catch.hpp"
#include "tests/support/mpe_route_runs.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace zbddc::testing {

// Rows whose products tie exactly: uniform, halves and quarters, and their permutations.
inline std::vector<double> tieProneRow(std::mt19937 &rng, uint32_t states) {
    const std::vector<std::vector<double>> rows =
        states == 2 ? std::vector<std::vector<double>>{{0.5, 0.5}, {0.75, 0.25}, {0.25, 0.75}}
                    : std::vector<std::vector<double>>{
                          {0.25, 0.25, 0.5}, {0.5, 0.25, 0.25}, {0.25, 0.5, 0.25}, {0.5, 0.5, 0.0}};
    return rows[std::uniform_int_distribution<size_t>(0, rows.size() - 1)(rng)];
}

// n variables of 2 or 3 states, each with up to two parents among the earlier ones.
inline BayesNet tiedNetwork(std::mt19937 &rng, uint32_t n) {
    BayesNet net;
    net.file = "tied";
    auto pick = [&](uint32_t lo, uint32_t hi) {
        return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
    };
    for (uint32_t v = 0; v < n; ++v) {
        BnVariable x;
        x.name = "X" + std::to_string(v);
        const uint32_t states = pick(2, 3);
        for (uint32_t s = 0; s < states; ++s)
            x.states.push_back("s" + std::to_string(s));
        for (uint32_t k = 0, parents = v ? pick(0, std::min(v, 2u)) : 0; k < parents; ++k) {
            const uint32_t p = pick(0, v - 1);
            if (std::find(x.parents.begin(), x.parents.end(), p) == x.parents.end())
                x.parents.push_back(p);
        }
        size_t rows = 1;
        for (uint32_t p : x.parents)
            rows *= net.variables[p].states.size();
        for (size_t r = 0; r < rows; ++r)
            for (double p : tieProneRow(rng, states))
                x.cpt.push_back(p);
        net.variables.push_back(std::move(x));
    }
    return net;
}

// Every assignment consistent with the evidence whose weight reaches the optimum within the
// tolerance, by enumeration.
inline std::vector<std::vector<uint32_t>> optimalAssignments(const FactorModel &model,
                                                             const Evidence &ev) {
    const uint32_t n = model.numVariables();
    std::vector<std::vector<uint32_t>> all;
    std::vector<double> weights;
    std::vector<uint32_t> x(n, 0);
    for (bool more = true; more;) {
        bool fits = true;
        for (uint32_t v = 0; v < n; ++v)
            fits = fits && (ev.states[v] == kNone || ev.states[v] == x[v]);
        if (fits) {
            all.push_back(x);
            weights.push_back(logWeight(model, x));
        }
        more = false;
        for (uint32_t v = n; v-- > 0;) {
            if (++x[v] < model.domainSizes[v]) {
                more = true;
                break;
            }
            x[v] = 0;
        }
    }
    const double best = *std::max_element(weights.begin(), weights.end());
    std::vector<std::vector<uint32_t>> optimal;
    if (std::isinf(best)) // impossible evidence: none
        return optimal;
    for (size_t i = 0; i < all.size(); ++i)
        if (std::exp(weights[i] - best) >= 1 / (1 + 1e-9))
            optimal.push_back(all[i]);
    return optimal;
}

// The lexicographically lowest of `assignments`, comparing variables in `order`.
inline std::vector<uint32_t> lowestIn(const std::vector<std::vector<uint32_t>> &assignments,
                                      const std::vector<uint32_t> &order) {
    return *std::min_element(assignments.begin(), assignments.end(),
                             [&](const auto &a, const auto &b) {
                                 for (uint32_t v : order)
                                     if (a[v] != b[v])
                                         return a[v] < b[v];
                                 return false;
                             });
}

// Random evidence on about a fifth of the variables, the first case none.
inline std::vector<Evidence> randomCases(std::mt19937 &rng, const std::vector<uint32_t> &domains,
                                         size_t count) {
    std::vector<Evidence> cases;
    for (size_t c = 0; c < count; ++c) {
        Evidence e{std::vector<uint32_t>(domains.size(), kNone), {}};
        for (uint32_t v = 0; c > 0 && v < domains.size(); ++v)
            if (std::uniform_int_distribution<int>(0, 4)(rng) == 0)
                e.states[v] = std::uniform_int_distribution<uint32_t>(0, domains[v] - 1)(rng);
        cases.push_back(std::move(e));
    }
    return cases;
}

// Each case: the rule's assignment reaches the optimum, is the lowest of the optimal ones in
// its decision order, and every route answered it.
inline void checkAgainstBruteForce(const FactorModel &model, const std::vector<Evidence> &cases,
                                   const std::vector<RouteRun> &runs, size_t &tiedCases) {
    auto rule = pipeline::MpeTieBreak::build(model, 0);
    REQUIRE(rule);
    for (size_t i = 0; i < cases.size(); ++i) {
        INFO("case " << i);
        const auto optimal = optimalAssignments(model, cases[i]);
        if (optimal.empty()) { // P(e) = 0: every route says MPE is undefined
            for (const RouteRun &run : runs)
                CHECK(!run.results[i]);
            continue;
        }
        auto lowest = (*rule)->canonical(cases[i]);
        REQUIRE(lowest);
        std::vector<uint32_t> unobserved, order = lowest->decisionOrder;
        for (uint32_t v = 0; v < model.numVariables(); ++v)
            if (cases[i].states[v] == kNone)
                unobserved.push_back(v);
        std::sort(order.begin(), order.end());
        REQUIRE(order == unobserved); // each unobserved variable decided once
        CHECK(lowest->assignment == lowestIn(optimal, lowest->decisionOrder));
        tiedCases += optimal.size() > 1;
        for (const RouteRun &run : runs) {
            INFO(run.name);
            REQUIRE(run.results.size() == cases.size());
            REQUIRE(run.results[i]);
            CHECK(run.results[i]->assignment == lowest->assignment);
            // A traceback that says whether it met a tie is right about it: the rule trusts it.
            if (run.results[i]->mpeTied)
                CHECK(*run.results[i]->mpeTied == (optimal.size() > 1));
        }
    }
}

} // namespace zbddc::testing
