// The MPE tie rule (pipeline/mpe_tie_break.h) against brute force: on small models built with
// exact ties (CPT rows of halves and quarters, symmetric tables, equal costs), every route a
// Session opens — the junction tree on the CPU and the reference interpreter under several
// orders, the MLF's circuit, bucket elimination — answers the same assignment for each case, and
// that assignment is the one the rule names: of all assignments whose weight, enumerated, reaches
// the optimum within 1e-9, the lexicographically lowest in the rule's decision order; and where a
// route's traceback says whether the case is tied, it is right. On pigs and hailfinder
// (bundled), sampled cases get the same assignment from every CPU junction tree. A .wcsp, left
// to bucket elimination's own traceback, answers one optimum on every executor.
#include "compiler/elimination/elimination_order.h"
#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/junction_tree/build_junction_tree.h"
#include "pipeline/pipeline.h"
#include "runtime/junction_tree/junction_tree_per_case.h"
#include "runtime/junction_tree/lowest_mpe.h"
#include "runtime/sample_evidence.h"

#include "tests/catch.hpp"
#include "tests/support/mpe_route_runs.h"
#include "tests/support/scratch.h"
#include "tests/support/tied_networks.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

using namespace zbddc;
using namespace zbddc::pipeline;
using zbddc::testing::answerMpe;
using zbddc::testing::checkAgainstBruteForce;
using zbddc::testing::modelAt;
using zbddc::testing::optimalAssignments;
using zbddc::testing::randomCases;
using zbddc::testing::RouteRun;
using zbddc::testing::tiedNetwork;

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

// Session::answer sends an MPE answer to the rule (mayHoldTie) unless its route's traceback ruled a
// tie out: a route's answer with mpeTied false stays as it is, even where another optimum is
// lower in the rule's order; one with mpeTied true or unset takes the rule's assignment.
TEST_CASE("MPE tie rule: only answers whose traceback did not rule a tie out are decided again",
          "[pipeline][mpe][ties]") {
    std::mt19937 rng(7);
    int checked = 0;
    for (int trial = 0; trial < 40 && checked < 3; ++trial) {
        const BayesNet net = tiedNetwork(rng, 6);
        const FactorModel model = factorModelOf(net);
        const Evidence none{std::vector<uint32_t>(model.numVariables(), kNone), {}};
        const auto optimal = optimalAssignments(model, none);
        if (optimal.size() < 2)
            continue;
        auto rule = MpeTieBreak::build(model, 0);
        REQUIRE(rule);
        auto lowest = (*rule)->canonical(none);
        REQUIRE(lowest);
        const auto other = std::find_if(optimal.begin(), optimal.end(),
                                        [&](const auto &a) { return a != lowest->assignment; });
        REQUIRE(other != optimal.end());
        TaskResult answer;
        answer.task = Task::Mpe;
        answer.assignment = *other;
        answer.log10 = logWeight(model, *other) / std::log(10.0);
        answer.value = std::pow(10.0, answer.log10);
        std::vector<Result<TaskResult>> results;
        using Told = std::optional<bool>;
        for (const Told tied : {Told(false), Told(true), Told()}) {
            answer.mpeTied = tied;
            results.push_back(answer);
        }
        CHECK_FALSE(mayHoldTie(results[0]));
        CHECK(mayHoldTie(results[1]));
        CHECK(mayHoldTie(results[2]));
        std::vector<Evidence> cases(results.size(), none);
        std::vector<std::string> notes;
        (*rule)->apply(cases, results, notes);
        CHECK(notes.empty());
        CHECK(results[0]->assignment == *other); // ruled untied: passes untouched
        CHECK(results[1]->assignment == lowest->assignment);
        CHECK(results[2]->assignment == lowest->assignment);
        ++checked;
    }
    CHECK(checked == 3);
}

// A MARKOV factor model of n variables of 2 or 3 states, pairs around a ring with a few chords,
// entries 1, 1 - 3e-10, 1 - 6e-10 or 0.5: each near tie is within the tie tolerance (1e-9), two
// or three together are not, so a walk that spends the tolerance at each op (recoverAssignment)
// and the rule's walk, which spends it once over the assignment, part ways.
FactorModel nearlyTiedModel(std::mt19937 &rng, uint32_t n) {
    auto pick = [&](uint32_t lo, uint32_t hi) {
        return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
    };
    const double entries[] = {1, 1 - 3e-10, 1 - 6e-10, 0.5};
    FactorModel model;
    model.file = "nearly-tied";
    model.kind = "MARKOV";
    for (uint32_t v = 0; v < n; ++v) {
        model.domainSizes.push_back(pick(2, 3));
        model.variables.push_back({"X" + std::to_string(v), {}});
        for (uint32_t s = 0; s < model.domainSizes.back(); ++s)
            model.variables.back().states.push_back(std::to_string(s));
    }
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (uint32_t v = 0; v < n; ++v)
        pairs.emplace_back(v, (v + 1) % n);
    for (int k = 0; k < 2; ++k)
        if (uint32_t a = pick(0, n - 1), b = pick(0, n - 1); a < b)
            pairs.emplace_back(a, b);
    for (auto [a, b] : pairs) {
        Factor f;
        f.scope = {a, b};
        for (uint32_t k = 0; k < model.domainSizes[a] * model.domainSizes[b]; ++k)
            f.table.push_back(entries[pick(0, 3)]);
        model.factors.push_back(std::move(f));
    }
    return model;
}

// The CPU's per-case junction tree decides a tie it meets as the rule does (lowestAssignment),
// and marks it with its tree's key: on the rule's own tree (min-fill over the model's scopes)
// each tied case carries the rule's key and the rule's assignment, so the rule skips it.
TEST_CASE("MPE tie rule: the per-case tree on the rule's tree answers tied cases as the rule",
          "[pipeline][mpe][ties]") {
    std::mt19937 rng(11);
    size_t tied = 0;
    for (int trial = 0; trial < 24; ++trial) {
        const FactorModel model =
            trial % 2 ? factorModelOf(tiedNetwork(rng, 9)) : nearlyTiedModel(rng, 9);
        const std::vector<std::vector<uint32_t>> families = model.sortedScopes();
        const std::vector<uint32_t> order = greedyOrder(
            buildInteractionGraph(model.domainSizes, families), OrderHeuristic::MinFill);
        auto tree = buildJunctionTree(model.domainSizes, families, order);
        REQUIRE(tree);
        const std::vector<Evidence> cases = randomCases(rng, model.domainSizes, 8);
        const auto results = runJunctionTreePerCase(model, *tree, Task::Mpe, cases, 1);
        const uint64_t key = lowestMpeKey(*tree, families, CaseTree::ByCost);
        for (size_t i = 0; i < cases.size(); ++i) {
            INFO("model " << trial << ", case " << i);
            auto rule = lowestMpe(model, *tree, families, factorRowsSumToOne(model), cases[i]);
            REQUIRE(bool(results[i]) == bool(rule)); // both refuse impossible evidence
            if (!rule)
                continue;
            if (results[i]->mpeTied != true) {
                CHECK(results[i]->mpeLowestKey == 0);
                continue;
            }
            ++tied;
            CHECK(results[i]->mpeLowestKey == key);
            CHECK(results[i]->assignment == rule->assignment);
        }
        // Another case tree choice is another key: the rule would decide those cases again.
        CHECK(lowestMpeKey(*tree, families, CaseTree::Network) != key);
    }
    CHECK(tied > 40);
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
