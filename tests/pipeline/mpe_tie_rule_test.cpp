// The MPE tie rule (pipeline/mpe_tie_break.h) against brute force: on small models built with
// exact ties (CPT rows of halves and quarters, symmetric tables, equal costs), every route a
// Session opens — the junction tree on the CPU and the reference interpreter under several
// orders, the MLF's circuit, bucket elimination — answers the same assignment for each case, and
// that assignment is the one the rule names: of all assignments whose weight, enumerated, reaches
// the optimum within 1e-9, the lexicographically lowest in the rule's decision order; and where a
// route's traceback says whether the case is tied, it is right. On pigs and hailfinder
// (bundled), sampled cases get the same assignment from every CPU junction tree. A .wcsp, left
// to bucket elimination's own traceback, answers one optimum on every executor.
#include "compiler/frontends/bn/bayes_net.h"
#include "pipeline/pipeline.h"
#include "runtime/sample_evidence.h"

#include "tests/catch.hpp"
#include "tests/support/mpe_route_runs.h"
#include "tests/support/scratch.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

using namespace zbddc;
using namespace zbddc::pipeline;
using zbddc::testing::answerMpe;
using zbddc::testing::modelAt;
using zbddc::testing::RouteRun;

namespace {

// Rows whose products tie exactly: uniform, halves and quarters, and their permutations.
std::vector<double> tieProneRow(std::mt19937 &rng, uint32_t states) {
    const std::vector<std::vector<double>> rows =
        states == 2 ? std::vector<std::vector<double>>{{0.5, 0.5}, {0.75, 0.25}, {0.25, 0.75}}
                    : std::vector<std::vector<double>>{{0.25, 0.25, 0.5},
                                                       {0.5, 0.25, 0.25},
                                                       {0.25, 0.5, 0.25},
                                                       {0.5, 0.5, 0.0}};
    return rows[std::uniform_int_distribution<size_t>(0, rows.size() - 1)(rng)];
}

// n variables of 2 or 3 states, each with up to two parents among the earlier ones.
BayesNet tiedNetwork(std::mt19937 &rng, uint32_t n) {
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

std::vector<uint32_t> domainsOf(const std::vector<Variable> &variables) {
    std::vector<uint32_t> d;
    for (const Variable &v : variables)
        d.push_back(static_cast<uint32_t>(v.states.size()));
    return d;
}

// Every assignment consistent with the evidence whose weight reaches the optimum within the
// tolerance, by enumeration.
std::vector<std::vector<uint32_t>> optimalAssignments(const FactorModel &model,
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
std::vector<uint32_t> lowestIn(const std::vector<std::vector<uint32_t>> &assignments,
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
std::vector<Evidence> randomCases(std::mt19937 &rng, const std::vector<uint32_t> &domains,
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
void checkAgainstBruteForce(const FactorModel &model, const std::vector<Evidence> &cases,
                            const std::vector<RouteRun> &runs, size_t &tiedCases) {
    auto rule = MpeTieBreak::build(model, 0);
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

} // namespace

TEST_CASE("MPE tie rule: tied networks answer the rule's assignment on every route",
          "[pipeline][mpe][ties]") {
    std::mt19937 rng(2026);
    size_t tiedCases = 0, allCases = 0;
    for (int trial = 0; trial < 16; ++trial) {
        const BayesNet net = tiedNetwork(rng, 10);
        const FactorModel model = factorModelOf(net);
        const std::vector<Evidence> cases = randomCases(rng, model.domainSizes, 6);
        std::vector<RouteRun> runs;
        for (const char *heuristic : {"min-fill", "min-degree", "min-weight"})
            runs.push_back(answerMpe(modelFileOf(net, "tied"), "jt", DeviceKind::Cpu, heuristic,
                                    cases));
        runs.push_back(answerMpe(modelFileOf(net, "tied"), "jt", DeviceKind::Reference, "", cases));
        runs.push_back(answerMpe(modelFileOf(net, "tied"), "mlf", DeviceKind::Cpu, "", cases));
        runs.push_back(answerMpe(modelFileOf(net, "tied"), "mlf", DeviceKind::Reference, "", cases));
        INFO("network " << trial);
        checkAgainstBruteForce(model, cases, runs, tiedCases);
        allCases += cases.size();
    }
    CHECK(tiedCases > allCases / 2); // the networks do tie
}

// n variables of 2 or 3 values around a ring with a few chords, each pair's table of entries
// 1 and 2 (a MARKOV .uai) or costs 0 and 1 (a .wcsp): optima tie in many ways.
std::string tiedPairsText(std::mt19937 &rng, uint32_t n, bool wcsp) {
    auto pick = [&](uint32_t lo, uint32_t hi) {
        return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
    };
    std::vector<uint32_t> domains;
    for (uint32_t v = 0; v < n; ++v)
        domains.push_back(pick(2, 3));
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (uint32_t v = 0; v < n; ++v)
        pairs.emplace_back(v, (v + 1) % n);
    for (int k = 0; k < 3; ++k)
        if (uint32_t a = pick(0, n - 1), b = pick(0, n - 1); a != b)
            pairs.emplace_back(a, b);
    std::ostringstream out;
    if (wcsp) {
        out << "tied " << n << " 3 " << pairs.size() << " 1000\n";
        for (uint32_t d : domains)
            out << d << " ";
        out << "\n";
        for (auto [a, b] : pairs) { // default cost 0, the tuples listed cost 0 or 1
            out << "2 " << a << " " << b << " 0 " << domains[a] * domains[b] << "\n";
            for (uint32_t x = 0; x < domains[a]; ++x)
                for (uint32_t y = 0; y < domains[b]; ++y)
                    out << x << " " << y << " " << pick(0, 1) << "\n";
        }
        return out.str();
    }
    out << "MARKOV\n" << n << "\n";
    for (uint32_t d : domains)
        out << d << " ";
    out << "\n" << pairs.size() << "\n";
    for (auto [a, b] : pairs)
        out << "2 " << a << " " << b << "\n";
    for (auto [a, b] : pairs) {
        out << domains[a] * domains[b] << "\n";
        for (uint32_t k = 0; k < domains[a] * domains[b]; ++k)
            out << pick(1, 2) << " ";
        out << "\n";
    }
    return out.str();
}

TEST_CASE("MPE tie rule: MARKOV .uai networks on jt and be", "[pipeline][mpe][ties]") {
    std::mt19937 rng(7);
    size_t tied = 0, all = 0;
    for (int trial = 0; trial < 12; ++trial) {
        const std::string name = "tied" + std::to_string(trial) + ".uai";
        INFO(name);
        const std::string path = testing::writeScratch(name, tiedPairsText(rng, 9, false));
        auto model = readFactorModelFile(path);
        REQUIRE(model);
        const std::vector<Evidence> cases = randomCases(rng, model->domainSizes, 6);
        std::vector<RouteRun> runs;
        for (const char *route : {"jt", "be"})
            runs.push_back(answerMpe(modelAt(path), route, DeviceKind::Cpu, "", cases));
        checkAgainstBruteForce(*model, cases, runs, tied);
        all += cases.size();
    }
    CHECK(tied > all / 2);
}

// A .wcsp is left to bucket elimination's own traceback (session.cpp): one program on every
// executor, integer costs that tie exactly, so the CPU and the reference interpreter agree.
TEST_CASE("MPE tie rule: a tied .wcsp answers one optimum on every executor",
          "[pipeline][mpe][ties]") {
    std::mt19937 rng(11);
    for (int trial = 0; trial < 8; ++trial) {
        const std::string name = "tied" + std::to_string(trial) + ".wcsp";
        INFO(name);
        const std::string path = testing::writeScratch(name, tiedPairsText(rng, 9, true));
        auto model = readFactorModelFile(path);
        REQUIRE(model);
        const std::vector<Evidence> cases = randomCases(rng, model->domainSizes, 6);
        const RouteRun cpu = answerMpe(modelAt(path), "be", DeviceKind::Cpu, "", cases);
        const RouteRun reference = answerMpe(modelAt(path), "be", DeviceKind::Reference, "", cases);
        for (size_t i = 0; i < cases.size(); ++i) {
            INFO("case " << i);
            const auto optimal = optimalAssignments(*model, cases[i]);
            REQUIRE(cpu.results[i]);
            REQUIRE(reference.results[i]);
            CHECK(std::find(optimal.begin(), optimal.end(), cpu.results[i]->assignment) !=
                  optimal.end());
            CHECK(cpu.results[i]->assignment == reference.results[i]->assignment);
        }
    }
}

TEST_CASE("MPE tie rule: pigs and hailfinder cases get one assignment from every CPU junction "
          "tree", "[pipeline][mpe][ties]") {
    for (const char *name : {"pigs", "hailfinder"}) {
        const auto net = testing::bundledNetwork(name);
        if (!net)
            continue;
        INFO(name);
        const std::vector<Evidence> cases = sampleEvidence(net->network, 24, 0.2, 1);
        const FactorModel model = factorModelOf(net->network);
        std::vector<RouteRun> runs;
        for (const char *heuristic : {"min-fill", "min-degree"})
            runs.push_back(answerMpe(modelAt(net->path), "jt", DeviceKind::Cpu, heuristic, cases));
        runs.push_back(answerMpe(modelAt(net->path), "jt", DeviceKind::Reference, "min-fill", cases));
        for (size_t i = 0; i < cases.size(); ++i) {
            INFO("case " << i);
            for (const RouteRun &run : runs) {
                INFO(run.name);
                REQUIRE(run.results[i]);
                // An optimum: the weight recomputed from the CPTs is the value reported.
                CHECK(testing::reportedWeight(model, *run.results[i]));
                CHECK(run.results[i]->assignment == runs[0].results[i]->assignment);
            }
        }
    }
}
