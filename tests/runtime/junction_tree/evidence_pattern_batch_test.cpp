// The batched junction tree by evidence pattern (evidence_pattern_batch.h), run by the CPU tensor
// executor: against brute force on random tiny networks, and against the per-case route (each
// case lowered and run alone) on benchmark networks, log10 P(e), every marginal and MPE's value
// within 1e-12, with cases that share a pattern (one group, values patched per case) and cases
// that do not.
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/moral_graph.h"
#include "compiler/junction_tree/order_search.h"
#include "runtime/junction_tree/evidence_pattern_batch.h"
#include "runtime/junction_tree/junction_tree_model.h"
#include "runtime/sample_evidence.h"

#include "tests/catch.hpp"
#include "tests/support/jt_testing.h"
#include "tests/support/network_answer_checks.h"

#include <random>

using namespace zbddc;
using namespace zbddc::testing;

namespace {

JunctionTreeOptions patternOptions(CaseTree caseTree) {
    JunctionTreeOptions options;
    options.executor = "cpu";
    options.threads = 2;
    options.batchedPlan = JunctionTreeOptions::BatchedPlan::EvidencePatterns;
    options.caseTree = caseTree;
    return options;
}

// `count` sampled cases, then each of the first ones again with its observed variables' states
// drawn anew: the same pattern, other slices.
std::vector<Evidence> casesWithRepeatedPatterns(const BayesNet &net, size_t count) {
    std::vector<Evidence> cases = sampleEvidence(net, count, 0.2, 11);
    std::mt19937 rng(5);
    for (size_t i = 0; i < count / 2; ++i) {
        Evidence again = cases[i];
        for (uint32_t v = 0; v < again.states.size(); ++v)
            if (again.states[v] != kNone)
                again.states[v] = rng() % net.variables[v].states.size();
        cases.push_back(std::move(again));
    }
    return cases;
}

void checkPatternsAgainstPerCase(const char *name, size_t count, CaseTree caseTree) {
    const auto dir = benchmarkNetworks();
    REQUIRE(std::filesystem::exists(dir));
    INFO(name);
    auto net = readNetworkFile((dir / (std::string(name) + ".bif")).string());
    REQUIRE(net.ok());
    auto tree = buildJunctionTree(*net, searchOrder(moralGraph(*net)).order);
    REQUIRE(tree.ok());
    const std::vector<Evidence> cases = casesWithRepeatedPatterns(*net, count);
    JunctionTreeOptions perCaseOptions = patternOptions(caseTree);
    perCaseOptions.batchedPlan = JunctionTreeOptions::BatchedPlan::PerCase;
    JunctionTreeModel perCase(*net, *tree, perCaseOptions);
    JunctionTreeModel patterns(*net, *tree, patternOptions(caseTree));
    for (Task task : {Task::Pr, Task::Mar, Task::Mpe}) {
        const auto ours = patterns.run(task, cases), theirs = perCase.run(task, cases);
        REQUIRE(ours.size() == cases.size());
        for (size_t i = 0; i < cases.size(); ++i) {
            INFO("task " << static_cast<int>(task) << ", case " << i);
            REQUIRE(ours[i].ok() == theirs[i].ok());
            if (!ours[i])
                continue;
            CHECK(ours[i]->device.label().find("evidence pattern") != std::string::npos);
            CHECK(ours[i]->log10 == Approx(theirs[i]->log10).margin(1e-12));
            for (size_t v = 0; v < ours[i]->marginals.size(); ++v)
                for (size_t x = 0; x < ours[i]->marginals[v].size(); ++x)
                    CHECK(ours[i]->marginals[v][x] ==
                          Approx(theirs[i]->marginals[v][x]).margin(1e-12));
        }
    }
}

} // namespace

TEST_CASE("jt evidence patterns: random tiny networks answer as brute force does",
          "[jt][runtime]") {
    std::mt19937 rng(41);
    for (int trial = 0; trial < 80; ++trial) {
        INFO("trial " << trial);
        BayesNet net = randomBayesNet(rng, 1 + rng() % 9);
        std::vector<std::vector<int>> cases;
        for (int k = 0; k < 9; ++k)
            cases.push_back(randomEvidence(net, rng, k == 0 ? 1000 : 2 + k % 3));
        cases.push_back(cases[1]); // a pattern twice
        auto tree = buildJunctionTree(net, searchOrder(moralGraph(net)).order, /*verify=*/true);
        REQUIRE(tree.ok());
        JunctionTreeModel model(net, std::move(*tree),
                                patternOptions(trial % 2 ? CaseTree::Evidence : CaseTree::Network));
        checkAgainstBruteForce(model, net, cases);
    }
}

TEST_CASE("jt evidence patterns: equal the per-case route on benchmark networks",
          "[jt][runtime]") {
    for (const char *name : {"asia", "alarm", "insurance", "hailfinder"}) {
        checkPatternsAgainstPerCase(name, 8, CaseTree::ByCost);
        checkPatternsAgainstPerCase(name, 8, CaseTree::Evidence);
    }
}

TEST_CASE("jt evidence patterns: equal the per-case route on water, mildew, barley and munin1",
          "[jt][runtime][slow]") {
    for (const char *name : {"water", "mildew", "barley", "munin1"})
        checkPatternsAgainstPerCase(name, 4, CaseTree::ByCost);
}

TEST_CASE("jt evidence patterns: the cost count keeps the full-table tree without evidence and "
          "takes the patterns where one pattern's slices shrink every clique",
          "[jt][runtime]") {
    const auto dir = benchmarkNetworks();
    REQUIRE(std::filesystem::exists(dir));
    auto net = readNetworkFile((dir / "alarm.bif").string());
    REQUIRE(net.ok());
    auto tree = buildJunctionTree(*net, searchOrder(moralGraph(*net)).order);
    REQUIRE(tree.ok());
    const FactorModel model = factorModelOf(*net);
    const auto families = model.sortedScopes();
    const auto rows = factorRowsSumToOne(model);
    const size_t n = net->variables.size();
    // No evidence: the pattern's program walks the CPTs lazily, fewer entries than the full
    // tables, but its ops and lowering cost more than that saves.
    const std::vector<Evidence> none(50, Evidence{std::vector<uint32_t>(n, kNone), {}});
    const BatchedPlanChoice empty =
        chooseBatchedPlan(model, *tree, families, rows, Task::Mar, none, CaseTree::ByCost,
                          kGpuPlanCosts);
    CHECK(empty.distinctPatterns == 1);
    CHECK(empty.fullEntriesPerCase > 0);
    CHECK(!empty.patterns);
    CHECK(empty.note().find("full-table") != std::string::npos);
    // Every variable of water observed, one pattern over many cases: each case's program is a
    // product of numbers, the full tree walks every clique (10^5 entries and more) whole.
    auto water = readNetworkFile((dir / "water.bif").string());
    REQUIRE(water.ok());
    auto waterTree = buildJunctionTree(*water, searchOrder(moralGraph(*water)).order);
    REQUIRE(waterTree.ok());
    const FactorModel waterModel = factorModelOf(*water);
    std::vector<Evidence> all(2000, Evidence{std::vector<uint32_t>(water->variables.size(), 0), {}});
    const BatchedPlanChoice full = chooseBatchedPlan(
        waterModel, *waterTree, waterModel.sortedScopes(), factorRowsSumToOne(waterModel),
        Task::Mar, all, CaseTree::ByCost, kGpuPlanCosts);
    CHECK(full.distinctPatterns == 1);
    CHECK(full.patternEntriesPerCase < full.fullEntriesPerCase);
    CHECK(full.patterns);
}
