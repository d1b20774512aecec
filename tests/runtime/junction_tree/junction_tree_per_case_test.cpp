// The CPU's per-case junction tree (each case's CPTs sliced by its evidence, barren CPTs left out)
// against the batched tree with indicator tables (the GPU's layout, on the reference
// interpreter), case by case on benchmark networks: log10 P(e)
// and every marginal within 1e-9, MPE's value likewise and its assignment of that probability;
// on the network's tree and on each case's own (evidence_tree.h), and against brute force.
// The batched route itself is checked against brute force and variable elimination in
// junction_tree_model_test.cpp; the larger networks here are [slow].
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/moral_graph.h"
#include "compiler/junction_tree/order_search.h"
#include "runtime/junction_tree/junction_tree_model.h"
#include "runtime/sample_evidence.h"

#include "tests/catch.hpp"
#include "tests/support/jt_testing.h"
#include "tests/support/network_answer_checks.h"

#include <cmath>
#include <initializer_list>
#include <random>

using namespace zbddc;
using namespace zbddc::testing;

namespace {

// log10 P(x) from the CPTs, summed in logs: munin's assignments lie far below the smallest double.
double log10Joint(const BayesNet &net, const std::vector<uint32_t> &x) {
    double sum = 0;
    for (uint32_t v = 0; v < net.variables.size(); ++v) {
        const BnVariable &var = net.variables[v];
        sum += std::log10(var.cpt[net.cptRow(v, x) * var.states.size() + x[v]]);
    }
    return sum;
}

// The batched tree's answers are computed once and each case tree's compared with them.
void checkPerCaseAgainstBatched(const char *name, size_t count,
                                std::initializer_list<CaseTree> caseTrees) {
    const auto dir = benchmarkNetworks();
    REQUIRE(std::filesystem::exists(dir));
    INFO(name);
    auto net = readNetworkFile((dir / (std::string(name) + ".bif")).string());
    REQUIRE(net.ok());
    auto tree = buildJunctionTree(*net, searchOrder(moralGraph(*net)).order);
    REQUIRE(tree.ok());
    const std::vector<Evidence> cases = sampleEvidence(*net, count, 0.2, 7);
    JunctionTreeOptions options;
    options.executor = "reference";
    JunctionTreeModel batched(*net, *tree, options);
    options.executor = "cpu";
    options.threads = 2;
    for (Task task : {Task::Pr, Task::Mar, Task::Mpe}) {
        const auto theirs = batched.run(task, cases);
        for (CaseTree caseTree : caseTrees) {
            options.caseTree = caseTree;
            const auto ours = JunctionTreeModel(*net, *tree, options).run(task, cases);
            REQUIRE(ours.size() == cases.size());
            for (size_t i = 0; i < cases.size(); ++i) {
                INFO("task " << static_cast<int>(task) << ", case tree "
                             << static_cast<int>(caseTree) << ", case " << i);
                REQUIRE(ours[i].ok() == theirs[i].ok());
                if (!ours[i])
                    continue;
                CHECK(ours[i]->log10 == Approx(theirs[i]->log10).margin(1e-9));
                for (size_t v = 0; v < ours[i]->marginals.size(); ++v)
                    for (size_t x = 0; x < ours[i]->marginals[v].size(); ++x)
                        CHECK(ours[i]->marginals[v][x] ==
                              Approx(theirs[i]->marginals[v][x]).margin(1e-9));
                if (task == Task::Mpe) // ties may pick another assignment of the same probability
                    CHECK(log10Joint(*net, ours[i]->assignment) ==
                          Approx(theirs[i]->log10).margin(1e-9));
            }
        }
    }
}

} // namespace

TEST_CASE("jt per case: random tiny networks, rows summing to 1 (barren CPTs dropped) or not, "
          "answer as brute force does, on the network's tree and on each case's own",
          "[jt][runtime]") {
    std::mt19937 rng(37);
    for (int trial = 0; trial < 120; ++trial) {
        INFO("trial " << trial);
        BayesNet net = randomBayesNet(rng, 1 + rng() % 9);
        const bool normalise = trial % 4 < 2; // else rows as drawn: their sums multiply in
        for (BnVariable &x : net.variables) { // a distribution per row, deterministic zeros kept
            if (!normalise)
                break;
            const size_t k = x.states.size();
            for (size_t row = 0; row < x.cpt.size() / k; ++row) {
                double sum = 0;
                for (size_t s = 0; s < k; ++s)
                    sum += x.cpt[row * k + s];
                for (size_t s = 0; s < k; ++s)
                    x.cpt[row * k + s] = sum > 0 ? x.cpt[row * k + s] / sum : 1.0 / k;
            }
        }
        std::vector<std::vector<int>> cases;
        for (int k = 0; k < 9; ++k)
            cases.push_back(randomEvidence(net, rng, k == 0 ? 1000 : 2 + k % 3));
        JunctionTreeOptions options;
        options.executor = "cpu";
        options.belief = trial % 2 ? JunctionTreeLowering::Belief::Always
                                   : JunctionTreeLowering::Belief::Never;
        options.caseTree = trial % 8 < 4 ? CaseTree::Evidence : CaseTree::Network;
        auto tree = buildJunctionTree(net, searchOrder(moralGraph(net)).order, /*verify=*/true);
        REQUIRE(tree.ok());
        JunctionTreeModel model(net, std::move(*tree), options);
        checkAgainstBruteForce(model, net, cases);
    }
}

TEST_CASE("jt per case: equals the batched tree on small benchmark networks", "[jt][runtime]") {
    for (const char *name : {"asia", "alarm", "insurance", "hailfinder", "pathfinder"})
        checkPerCaseAgainstBatched(name, 6, {CaseTree::ByCost, CaseTree::Evidence});
}

TEST_CASE("jt per case: equals the batched tree on water, mildew, pigs, barley, munin and munin2",
          "[.][jt][runtime][slow]") {
    for (const char *name : {"water", "mildew", "pigs", "barley", "munin", "munin2"})
        checkPerCaseAgainstBatched(name, 3, {CaseTree::Network, CaseTree::Evidence});
}

// A batch on the CPU (BatchedPlan::ByCost): alarm's full tables cost less per case than the
// per-case route's ops, so a batch of 40 runs them (one run for the batch); water's do not. Both
// answer as the per-case route does; fewer than 16 cases go one at a time.
TEST_CASE("a CPU batch takes the full tables where they cost less per case", "[jt]") {
    const auto dir = benchmarkNetworks();
    REQUIRE(std::filesystem::exists(dir));
    for (const auto &[name, fullTables] : {std::pair{"alarm", true}, std::pair{"water", false}}) {
        INFO(name);
        auto net = readNetworkFile((dir / (std::string(name) + ".bif")).string());
        REQUIRE(net.ok());
        auto tree = buildJunctionTree(*net, searchOrder(moralGraph(*net)).order);
        REQUIRE(tree.ok());
        const std::vector<Evidence> cases = sampleEvidence(*net, 40, 0.2, 11);
        JunctionTreeOptions options;
        options.executor = "cpu";
        options.threads = 2;
        JunctionTreeModel byCost(*net, *tree, options);
        options.batchedPlan = JunctionTreeOptions::BatchedPlan::PerCase;
        JunctionTreeModel perCase(*net, *tree, options);
        for (Task task : {Task::Pr, Task::Mar}) {
            JunctionTreeRunInfo batch, few;
            const auto ours = byCost.run(task, cases, &batch);
            (void)byCost.run(task, std::span(cases).first(15), &few);
            const auto theirs = perCase.run(task, cases);
            CHECK((batch.runs == 1) == fullTables);
            CHECK(few.batch == 1);
            REQUIRE(ours.size() == theirs.size());
            for (size_t i = 0; i < cases.size(); ++i) {
                REQUIRE(ours[i].ok());
                REQUIRE(theirs[i].ok());
                CHECK(ours[i]->log10 == Approx(theirs[i]->log10).epsilon(1e-12));
                for (size_t v = 0; v < ours[i]->marginals.size(); ++v)
                    for (size_t x = 0; x < ours[i]->marginals[v].size(); ++x)
                        CHECK(ours[i]->marginals[v][x] ==
                              Approx(theirs[i]->marginals[v][x]).margin(1e-12));
            }
        }
    }
}
