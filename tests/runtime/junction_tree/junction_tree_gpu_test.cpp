// Junction-tree propagation on the GPU (the generated tensor kernels, case index fastest) against
// the CPU executor (case index slowest) and brute force: random tiny networks, and benchmark
// networks with batches of 1, 7 and 1,024 sampled cases and one batch split over several runs by
// a small memory budget; impossible cases fail alone; PR, MAR and MPE alternated on one model,
// each on its kept compiled program; cases split evenly over logical devices of
// one GPU (and over the GPUs there are) answering as one device does. Skipped, saying why,
// without a GPU.
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
#include "tests/support/skip.h"

#include <cmath>
#include <random>

using namespace zbddc;
using namespace zbddc::testing;

namespace {

const bool gpuPresent = skipProgramUnless(gpuUsable(), "no usable GPU");

using Traceback = JunctionTreeOptions::Traceback;

JunctionTreeModel model(const BayesNet &net, const char *executor, uint64_t budget = 0,
                        std::vector<int> gpus = {}, Traceback traceback = Traceback::Auto) {
    OrderSearchOptions search;
    search.maxRuns = 8;
    auto tree = buildJunctionTree(net, searchOrder(moralGraph(net), search).order);
    REQUIRE(tree.ok());
    JunctionTreeOptions options;
    options.executor = executor;
    options.memoryBudgetBytes = budget;
    options.gpus = std::move(gpus);
    options.traceback = traceback;
    return JunctionTreeModel(net, std::move(*tree), options);
}

// The same answers, case by case, from two runs.
void checkSame(const std::vector<Result<TaskResult>> &gpu,
               const std::vector<Result<TaskResult>> &cpu, const BayesNet &net) {
    REQUIRE(gpu.size() == cpu.size());
    for (size_t i = 0; i < gpu.size(); ++i) {
        INFO("case " << i);
        REQUIRE(gpu[i].ok() == cpu[i].ok());
        if (!gpu[i])
            continue;
        CHECK(gpu[i]->device.label().find("cuda") == 0);
        CHECK(gpu[i]->log10 == Approx(cpu[i]->log10).epsilon(1e-12).margin(1e-9));
        for (size_t v = 0; v < cpu[i]->marginals.size(); ++v)
            for (size_t x = 0; x < cpu[i]->marginals[v].size(); ++x)
                CHECK(gpu[i]->marginals[v][x] == Approx(cpu[i]->marginals[v][x]).margin(1e-9));
        if (!cpu[i]->assignment.empty()) // ties may differ: compare the assignments' probabilities
            CHECK(jointProbability(net, gpu[i]->assignment) ==
                  Approx(jointProbability(net, cpu[i]->assignment)).epsilon(1e-9));
    }
}

std::vector<Evidence> sampledCases(const BayesNet &net, std::mt19937 &rng, size_t n) {
    std::vector<Evidence> cases;
    for (size_t k = 0; k < n; ++k) {
        const std::vector<uint32_t> x = ancestralSample(net, rng);
        Evidence e;
        for (size_t v = 0; v < x.size(); ++v)
            e.states.push_back(rng() % 5 == 0 ? x[v] : kNone);
        cases.push_back(std::move(e));
    }
    return cases;
}

} // namespace

TEST_CASE("jt gpu: random tiny networks answer as brute force does", "[jt][gpu]") {
    REQUIRE(gpuPresent);
    std::mt19937 rng(41);
    for (int trial = 0; trial < 12; ++trial) {
        INFO("trial " << trial);
        const BayesNet net = randomBayesNet(rng, 1 + rng() % 8);
        std::vector<std::vector<int>> raw;
        std::vector<Evidence> cases;
        for (int k = 0; k < 7; ++k) {
            std::vector<int> e(net.variables.size(), -1);
            for (size_t v = 0; v < e.size(); ++v)
                if (rng() % 3 == 0)
                    e[v] = static_cast<int>(rng() % net.variables[v].states.size());
            raw.push_back(e);
            cases.push_back(runtimeEvidence(e));
        }
        JunctionTreeModel gpu = model(net, "cuda");
        const auto pr = gpu.run(Task::Pr, cases);
        const auto mar = gpu.run(Task::Mar, cases);
        JunctionTreeModel traced = model(net, "cuda", 0, {}, Traceback::OnExecutor);
        const auto mpe = traced.run(Task::Mpe, cases); // traced back on the device
        for (size_t k = 0; k < cases.size(); ++k) {
            const BruteForceAnswers expected = bruteForceQueries(net, raw[k]);
            REQUIRE(mpe[k].ok() == (expected.probability > 0));
            if (mpe[k]) {
                CHECK(jointProbability(net, mpe[k]->assignment) ==
                      Approx(expected.mpeValue).epsilon(1e-12));
                for (size_t v = 0; v < raw[k].size(); ++v)
                    if (raw[k][v] >= 0)
                        CHECK(mpe[k]->assignment[v] == static_cast<uint32_t>(raw[k][v]));
            }
            REQUIRE(pr[k].ok());
            CHECK(pr[k]->value == Approx(expected.probability).epsilon(1e-12).margin(1e-300));
            CHECK(mar[k].ok() == (expected.probability > 0));
            if (mar[k])
                for (size_t v = 0; v < net.variables.size(); ++v)
                    for (size_t x = 0; x < expected.marginals[v].size(); ++x)
                        CHECK(mar[k]->marginals[v][x] ==
                              Approx(expected.marginals[v][x]).margin(1e-12));
        }
    }
}

TEST_CASE("jt gpu: alternating tasks reuse each task's compiled program", "[jt][gpu]") {
    REQUIRE(gpuPresent);
    std::mt19937 rng(43);
    const BayesNet net = randomBayesNet(rng, 7);
    const std::vector<Evidence> cases = sampledCases(net, rng, 6);
    JunctionTreeModel gpu = model(net, "cuda");
    checkTasksReusePrograms(gpu, cases);
    JunctionTreeModel cpu = model(net, "cpu");
    for (Task task : {Task::Pr, Task::Mar, Task::Mpe})
        checkSame(gpu.run(task, cases), cpu.run(task, cases), net); // the kept programs
}

TEST_CASE("jt gpu: benchmark networks answer batches as the CPU does", "[jt][gpu]") {
    REQUIRE(gpuPresent);
    const auto dir = benchmarkNetworks();
    REQUIRE(std::filesystem::exists(dir));
    std::mt19937 rng(7);
    for (const char *name : {"asia", "alarm", "hailfinder"}) {
        INFO(name);
        auto net = readNetworkFile((dir / (std::string(name) + ".bif")).string());
        REQUIRE(net.ok());
        JunctionTreeModel gpu = model(*net, "cuda");
        JunctionTreeModel cpu = model(*net, "cpu");
        JunctionTreeModel traced = model(*net, "cuda", 0, {}, Traceback::OnExecutor);
        for (size_t batch : {size_t{1}, size_t{7}, size_t{1024}}) {
            INFO("batch " << batch);
            const std::vector<Evidence> cases = sampledCases(*net, rng, batch);
            for (Task task : {Task::Pr, Task::Mar, Task::Mpe})
                checkSame(gpu.run(task, cases), cpu.run(task, cases), *net);
            // MPE traced back on the device whatever the tree's size (Auto keeps small ones on
            // the host).
            checkSame(traced.run(Task::Mpe, cases), cpu.run(Task::Mpe, cases), *net);
        }
        // More cases than one run holds: a budget of a few cases' tables.
        const std::vector<Evidence> cases = sampledCases(*net, rng, 1500);
        // One case's bytes from a model of its own: `gpu` keeps its MAR program of 1024 cases,
        // which answers one case in a run of that batch.
        JunctionTreeRunInfo info;
        (void)model(*net, "cuda").run(Task::Mar, std::span(cases).first(1), &info);
        REQUIRE(info.batch == 1);
        const uint64_t perCase = info.bytesPerRun;
        JunctionTreeModel small = model(*net, "cuda", 300 * perCase);
        const auto chunked = small.run(Task::Mar, cases, &info);
        CHECK(info.runs > 1);
        checkSame(chunked, cpu.run(Task::Mar, cases), *net);
    }
}

TEST_CASE("jt gpu: cases split evenly over several devices answer as the CPU does",
          "[jt][gpu][multi-device]") {
    REQUIRE(gpuPresent);
    const auto dir = benchmarkNetworks();
    REQUIRE(std::filesystem::exists(dir));
    auto net = readNetworkFile((dir / "alarm.bif").string());
    REQUIRE(net.ok());
    std::mt19937 rng(11);
    JunctionTreeModel cpu = model(*net, "cpu");
    std::vector<std::vector<int>> lists = {{0, 0}, {0, 0, 0}};
    if (auto count = resolveGpuRequest("all"); count && count->size() > 1)
        lists.push_back(*count);
    for (const std::vector<int> &gpus : lists) {
        INFO(gpus.size() << " devices");
        JunctionTreeModel spread = model(*net, "cuda", 0, gpus);
        for (size_t batch : {size_t{1}, size_t{2}, size_t{301}}) { // fewer cases than devices too
            INFO("batch " << batch);
            const std::vector<Evidence> cases = sampledCases(*net, rng, batch);
            for (Task task : {Task::Pr, Task::Mar, Task::Mpe}) {
                JunctionTreeRunInfo info;
                const auto answers = spread.run(task, cases, &info);
                CHECK(info.devices == gpus.size());
                checkSame(answers, cpu.run(task, cases), *net);
                for (const auto &a : answers)
                    if (a)
                        CHECK(a->device.label().find("cases split over devices") !=
                              std::string::npos);
            }
        }
    }
}
