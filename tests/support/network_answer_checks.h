// Checks of a network's answers (anything with `run(Task, span<const Evidence>)`: the in-process
// junction tree, a network .so) against oracles that share no code with them: brute force on tiny
// networks and the tests' own variable elimination.
#pragma once

#include "compiler/frontends/bn/bayes_net.h"
#include "runtime/tasks.h"

#include "tests/catch.hpp"
#include "tests/support/bn_brute_force.h"
#include "tests/support/bn_elimination.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace zbddc::testing {

inline std::vector<int> randomEvidence(const BayesNet &net, std::mt19937 &rng, unsigned oneIn) {
    std::vector<int> e(net.variables.size(), -1);
    for (size_t v = 0; v < e.size(); ++v)
        if (rng() % oneIn == 0)
            e[v] = static_cast<int>(rng() % net.variables[v].states.size());
    return e;
}

inline bool consistent(const std::vector<uint32_t> &x, const std::vector<int> &e) {
    for (size_t v = 0; v < e.size(); ++v)
        if (e[v] >= 0 && x[v] != static_cast<uint32_t>(e[v]))
            return false;
    return true;
}

// Every task on `cases` through `model`, against brute force.
template <typename Answerer>
void checkAgainstBruteForce(Answerer &model, const BayesNet &net,
                            const std::vector<std::vector<int>> &cases) {
    std::vector<Evidence> evidence;
    for (const auto &e : cases)
        evidence.push_back(runtimeEvidence(e));
    const auto pr = model.run(Task::Pr, evidence);
    const auto mar = model.run(Task::Mar, evidence);
    const auto mpe = model.run(Task::Mpe, evidence);
    REQUIRE(pr.size() == cases.size());
    REQUIRE(mar.size() == cases.size());
    REQUIRE(mpe.size() == cases.size());
    for (size_t i = 0; i < cases.size(); ++i) {
        INFO("case " << i);
        const BruteForceAnswers expected = bruteForceQueries(net, cases[i]);
        REQUIRE(pr[i].ok());
        CHECK(pr[i]->value == Approx(expected.probability).epsilon(1e-12).margin(1e-300));
        if (expected.probability == 0) {
            CHECK(std::isinf(pr[i]->log10));
            CHECK_FALSE(mar[i].ok()); // this case alone fails; the others are answered
            CHECK_FALSE(mpe[i].ok());
            continue;
        }
        CHECK(pr[i]->log10 ==
              Approx(std::log10(expected.probability)).epsilon(1e-12).margin(1e-12));
        REQUIRE(mar[i].ok());
        for (size_t v = 0; v < net.variables.size(); ++v)
            for (size_t x = 0; x < expected.marginals[v].size(); ++x)
                CHECK(mar[i]->marginals[v][x] == Approx(expected.marginals[v][x]).margin(1e-12));
        REQUIRE(mpe[i].ok());
        CHECK(mpe[i]->value == Approx(expected.mpeValue).epsilon(1e-12));
        CHECK(consistent(mpe[i]->assignment, cases[i]));
        CHECK(jointProbability(net, mpe[i]->assignment) ==
              Approx(expected.mpeValue).epsilon(1e-12));
    }
}

// PR, MPE and a sample of marginals on `cases` (P(e) > 0) against variable elimination.
template <typename Answerer>
void checkAgainstElimination(Answerer &model, const BayesNet &net,
                             const std::vector<std::vector<int>> &cases) {
    std::vector<Evidence> evidence;
    for (const auto &e : cases)
        evidence.push_back(runtimeEvidence(e));
    const auto pr = model.run(Task::Pr, evidence);
    const auto mpe = model.run(Task::Mpe, evidence);
    const auto mar = model.run(Task::Mar, evidence);
    for (size_t k = 0; k < cases.size(); ++k) {
        INFO("case " << k);
        const double pe = eliminationValue(net, cases[k], Eliminate::Sum);
        REQUIRE(pr[k].ok());
        CHECK(pr[k]->log10 == Approx(std::log10(pe)).margin(1e-9));
        REQUIRE(mpe[k].ok());
        const double best = eliminationValue(net, cases[k], Eliminate::Max);
        CHECK(mpe[k]->value == Approx(best).epsilon(1e-9));
        CHECK(consistent(mpe[k]->assignment, cases[k]));
        CHECK(jointProbability(net, mpe[k]->assignment) == Approx(best).epsilon(1e-9));
        REQUIRE(mar[k].ok());
        for (size_t v = k; v < net.variables.size(); v += 7) { // a sample of variables
            std::vector<int> ex = cases[k];
            for (size_t x = 0; x < net.variables[v].states.size(); ++x) {
                double expected = cases[k][v] < 0 || cases[k][v] == static_cast<int>(x);
                if (cases[k][v] < 0) {
                    ex[v] = static_cast<int>(x);
                    expected = eliminationValue(net, ex, Eliminate::Sum) / pe;
                }
                CHECK(mar[k]->marginals[v][x] == Approx(expected).margin(1e-9));
            }
        }
    }
}

// A chain X0 -> X1 -> ... of n variables with a fixed 3x3 transition, every variable observed
// except every 7th, so that P(e) falls far below the smallest double (about 10^-700 at n = 1500);
// its answers in closed form.
struct LongChain {
    BayesNet net;
    std::vector<int> e;
    double log10Pe = 0;
    std::vector<std::vector<double>> posterior; // of the hidden variables
};

inline LongChain longChain(uint32_t n) {
    // X0 -> X1 -> ... with a fixed 3x3 transition; every variable observed except every 7th.
    // Closed form: the observed steps' CPT entries, and for each hidden X_i the sum over x_i of
    // P(x_i | x_{i-1}) P(x_{i+1} | x_i); its posterior is that sum's terms normalised.
    const double prior[] = {0.2, 0.5, 0.3};
    const double t[3][3] = {{0.6, 0.3, 0.1}, {0.2, 0.5, 0.3}, {0.25, 0.25, 0.5}};
    BayesNet net;
    for (uint32_t v = 0; v < n; ++v) {
        BnVariable x{"X" + std::to_string(v), {"a", "b", "c"}, {}, {}};
        if (v == 0)
            x.cpt.assign(prior, prior + 3);
        else {
            x.parents = {v - 1};
            for (const auto &row : t)
                x.cpt.insert(x.cpt.end(), row, row + 3);
        }
        net.variables.push_back(std::move(x));
    }
    std::mt19937 rng(5);
    std::vector<int> e(n);
    for (uint32_t v = 0; v < n; ++v)
        e[v] = v % 7 == 3 ? -1 : static_cast<int>(rng() % 3);
    double log10Pe = 0;
    std::vector<std::vector<double>> posterior(n);
    for (uint32_t v = 0; v < n; ++v) {
        if (e[v] < 0) {
            double terms[3], sum = 0;
            for (int x = 0; x < 3; ++x)
                sum += terms[x] = t[e[v - 1]][x] * t[x][e[v + 1]];
            log10Pe += std::log10(sum);
            for (double p : terms)
                posterior[v].push_back(p / sum);
        } else if (v == 0) {
            log10Pe += std::log10(prior[e[0]]);
        } else if (e[v - 1] >= 0) {
            log10Pe += std::log10(t[e[v - 1]][e[v]]);
        }
    }
    REQUIRE(log10Pe < -600);
    return {std::move(net), std::move(e), log10Pe, std::move(posterior)};
}

// PR, MAR and MPE of the chain's one case against the closed form.
template <typename Answerer> void checkLongChain(Answerer &model, const LongChain &chain) {
    const uint32_t n = static_cast<uint32_t>(chain.e.size());
    const std::vector<int> &e = chain.e;
    const auto &posterior = chain.posterior;
    const double log10Pe = chain.log10Pe;
    const std::vector<Evidence> cases{runtimeEvidence(e)};
    const auto pr = model.run(Task::Pr, cases);
    REQUIRE(pr[0].ok());
    CHECK(pr[0]->value == 0); // underflows in linear scale; log10 holds it
    CHECK(pr[0]->log10 == Approx(log10Pe).epsilon(1e-12));
    const auto mar = model.run(Task::Mar, cases);
    REQUIRE(mar[0].ok());
    for (uint32_t v = 3; v < n; v += 7)
        for (int x = 0; x < 3; ++x)
            CHECK(mar[0]->marginals[v][x] == Approx(posterior[v][x]).margin(1e-12));
    const auto mpe = model.run(Task::Mpe, cases);
    REQUIRE(mpe[0].ok());
    CHECK(consistent(mpe[0]->assignment, e));
    for (uint32_t v = 3; v < n; v += 7) // the best hidden state maximises its own term
        CHECK(posterior[v][mpe[0]->assignment[v]] ==
              *std::max_element(posterior[v].begin(), posterior[v].end()));
}

// `count` cases with about a fifth of the variables observed, from ancestral samples (P(e) > 0).
inline std::vector<std::vector<int>> sampledCases(const BayesNet &net, std::mt19937 &rng,
                                                  int count) {
    std::vector<std::vector<int>> cases;
    for (int k = 0; k < count; ++k) {
        const std::vector<uint32_t> x = ancestralSample(net, rng);
        std::vector<int> e(x.size(), -1);
        for (size_t v = 0; v < x.size(); ++v)
            if (rng() % 5 == 0)
                e[v] = static_cast<int>(x[v]);
        cases.push_back(e);
    }
    return cases;
}

} // namespace zbddc::testing
