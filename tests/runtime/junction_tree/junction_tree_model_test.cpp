// Junction-tree propagation (runtime/junction_tree) against oracles that share no code with it:
// brute-force enumeration on random tiny networks (deterministic zeros, cases with P(e) = 0 in a
// batch), the tests' own variable elimination on benchmark networks, and a closed form on a long
// chain whose P(e) is far below the smallest double. Reference interpreter and CPU executor,
// chunked batches included.
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/moral_graph.h"
#include "compiler/junction_tree/order_search.h"
#include "runtime/tensor/tensor_executor.h"
#include "runtime/junction_tree/junction_tree_model.h"

#include "tests/catch.hpp"
#include "tests/support/bn_brute_force.h"
#include "tests/support/bn_elimination.h"
#include "tests/support/jt_program_reuse.h"
#include "tests/support/jt_testing.h"
#include "tests/support/network_answer_checks.h"

#include <cmath>
#include <random>

using namespace zbddc;
using namespace zbddc::testing;

namespace {

JunctionTreeModel junctionTreeModel(const BayesNet &net, JunctionTreeOptions options) {
    const InteractionGraph graph = moralGraph(net);
    OrderSearchOptions search;
    search.maxRuns = 8;
    auto tree = buildJunctionTree(net, searchOrder(graph, search).order, /*verify=*/true);
    REQUIRE(tree.ok());
    return JunctionTreeModel(net, std::move(*tree), std::move(options));
}

} // namespace

TEST_CASE("jt runtime: random tiny networks answer PR, MAR and MPE as brute force does",
          "[jt][runtime]") {
    std::mt19937 rng(29);
    // The reference interpreter runs the batched tree (the GPU's layout), the CPU one case at a time.
    for (const char *executor : {"reference", "cpu"}) {
        for (int trial = 0; trial < 40; ++trial) {
            INFO(executor << ", trial " << trial);
            const BayesNet net = randomBayesNet(rng, 1 + rng() % 8);
            std::vector<std::vector<int>> cases;
            for (int k = 0; k < 9; ++k)
                cases.push_back(randomEvidence(net, rng, k == 0 ? 1000 : 3));
            JunctionTreeOptions options;
            options.executor = executor;
            options.maxBatch = 1 + trial % 5; // 1 .. 5 cases per run: chunks and a padded tail
            options.belief = trial % 2 ? JunctionTreeLowering::Belief::Always // Hugin's division
                                       : JunctionTreeLowering::Belief::Never; // products only
            JunctionTreeModel model = junctionTreeModel(net, options);
            checkAgainstBruteForce(model, net, cases);
        }
    }
}

TEST_CASE("jt runtime: alternating tasks reuse each task's prepared program", "[jt][runtime]") {
    std::mt19937 rng(37);
    const BayesNet net = randomBayesNet(rng, 7);
    std::vector<std::vector<int>> cases;
    for (int k = 0; k < 6; ++k)
        cases.push_back(randomEvidence(net, rng, 3));
    JunctionTreeOptions options;
    options.executor = "reference"; // the batched route, through prepared programs as on a GPU
    JunctionTreeModel model = junctionTreeModel(net, options);
    std::vector<Evidence> evidence;
    for (const auto &e : cases)
        evidence.push_back(runtimeEvidence(e));
    checkTasksReusePrograms(model, evidence);
    checkAgainstBruteForce(model, net, cases); // on the kept programs
}

TEST_CASE("jt runtime: a batch with impossible cases answers the possible ones", "[jt][runtime]") {
    // A -> B with B = A deterministically: observing A=0, B=1 has probability 0.
    BayesNet net;
    net.variables.push_back({"A", {"a0", "a1"}, {}, {0.3, 0.7}});
    net.variables.push_back({"B", {"b0", "b1"}, {0}, {1, 0, 0, 1}});
    const std::vector<std::vector<int>> cases = {{0, 1}, {0, -1}, {1, 1}, {-1, 0}};
    for (const char *executor : {"cpu", "reference"}) {
        JunctionTreeOptions options;
        options.executor = executor;
        JunctionTreeModel model = junctionTreeModel(net, options);
        checkAgainstBruteForce(model, net, cases);
        std::vector<Evidence> evidence;
        for (const auto &e : cases)
            evidence.push_back(runtimeEvidence(e));
        evidence.push_back(runtimeEvidence({-1, -1}));
        evidence.back().states[1] = kContradicted; // B observed in two states
        const auto mar = model.run(Task::Mar, evidence);
        CHECK_FALSE(mar[0].ok());
        CHECK(mar[1].ok());
        CHECK(mar[2].ok());
        CHECK(mar[3].ok());
        CHECK_FALSE(mar[4].ok());
        const auto pr = model.run(Task::Pr, evidence);
        REQUIRE(pr[4].ok());
        CHECK(std::isinf(pr[4]->log10));
    }
}

TEST_CASE("jt runtime: several GPUs asked for where none is usable run on the CPU, as brute force",
          "[jt][runtime][multi-device]") {
    if (gpuUsable()) {
        WARN("a GPU is here: the spread itself is tested by test_junction_tree_gpu");
        return;
    }
    std::mt19937 rng(31);
    const BayesNet net = randomBayesNet(rng, 6);
    std::vector<std::vector<int>> cases;
    for (int k = 0; k < 5; ++k)
        cases.push_back(randomEvidence(net, rng, 3));
    JunctionTreeOptions options; // executor auto
    options.gpus = {0, 0};
    JunctionTreeModel model = junctionTreeModel(net, options);
    checkAgainstBruteForce(model, net, cases);
    JunctionTreeRunInfo info;
    std::vector<Evidence> evidence;
    for (const auto &e : cases)
        evidence.push_back(runtimeEvidence(e));
    (void)model.run(Task::Pr, evidence, &info);
    CHECK(info.devices == 1);
    CHECK(info.device.kind == DeviceKind::Cpu);
}

TEST_CASE("jt runtime: P(e) far below the smallest double, on a 1,500-variable chain",
          "[jt][runtime]") {
    const LongChain chain = longChain(1500);
    for (const char *executor : {"cpu", "reference"})
        for (CaseTree caseTree : {CaseTree::ByCost, CaseTree::Network, CaseTree::Evidence}) {
            if (executor == std::string_view("reference") && caseTree != CaseTree::ByCost)
                continue; // the batched tree has one tree for every case
            INFO(executor << ", case tree " << static_cast<int>(caseTree));
            JunctionTreeOptions options;
            options.executor = executor;
            // The case's own tree (which ByCost takes here) hangs its ~300 observed pieces side
            // by side under the root.
            options.caseTree = caseTree;
            JunctionTreeModel model = junctionTreeModel(chain.net, options);
            checkLongChain(model, chain);
        }
}

TEST_CASE("jt runtime: benchmark networks against variable elimination", "[jt][runtime]") {
    const auto dir = benchmarkNetworks();
    REQUIRE(std::filesystem::exists(dir));
    std::mt19937 rng(11);
    for (const char *name : {"asia", "alarm", "insurance", "hailfinder"}) {
        INFO(name);
        auto net = readNetworkFile((dir / (std::string(name) + ".bif")).string());
        REQUIRE(net.ok());
        JunctionTreeOptions options;
        options.executor = "cpu";
        options.belief = JunctionTreeLowering::Belief::Always;
        JunctionTreeModel model = junctionTreeModel(*net, options);
        checkAgainstElimination(model, *net, sampledCases(*net, rng, 4));
    }
}
