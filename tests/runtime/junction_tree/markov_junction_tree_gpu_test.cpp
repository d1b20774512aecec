// Markov networks on the GPU's batched junction tree (generated tensor kernels, case index
// fastest): random tiny networks against brute force, and the UAI 2014 MAR instances of the
// benchmark folder against the CPU's per-case route, case by case, with their own evidence and
// with a batch of sampled cases, and against their .MAR files. Skipped (77), saying why, without
// a GPU or (the instances' case alone) without the benchmark folder.
#include "runtime/tensor/tensor_executor.h"

#include "tests/catch.hpp"
#include "tests/support/markov_checks.h"
#include "tests/support/skip.h"
#include "tests/support/uai_instances.h"

#include <cmath>
#include <random>

using namespace zbddc;
using namespace zbddc::testing;

namespace {

const bool gpuPresent = skipProgramUnless(gpuUsable(), "no usable GPU");

// The instance's own case and `more` cases observing ~10% of the variables at random states (a
// case may have Z(e) = 0: it must fail alike on both).
std::vector<Evidence> casesFor(const OpenedUaiInstance &in, size_t more, std::mt19937 &rng) {
    std::vector<Evidence> cases = in.cases;
    for (size_t k = 0; k < more; ++k) {
        Evidence e;
        for (uint32_t d : in.model.domainSizes)
            e.states.push_back(rng() % 10 == 0 ? static_cast<uint32_t>(rng() % d) : kNone);
        cases.push_back(std::move(e));
    }
    return cases;
}

void checkSameAnswers(const FactorModel &model, const std::vector<Result<TaskResult>> &gpu,
                      const std::vector<Result<TaskResult>> &cpu) {
    REQUIRE(gpu.size() == cpu.size());
    for (size_t i = 0; i < gpu.size(); ++i) {
        INFO("case " << i);
        REQUIRE(gpu[i].ok() == cpu[i].ok());
        if (!gpu[i])
            continue;
        CHECK(gpu[i]->device.label().find("cuda") == 0);
        CHECK(gpu[i]->log10 == Approx(cpu[i]->log10).epsilon(1e-11).margin(1e-9));
        for (size_t v = 0; v < cpu[i]->marginals.size(); ++v)
            for (size_t x = 0; x < cpu[i]->marginals[v].size(); ++x)
                CHECK(gpu[i]->marginals[v][x] == Approx(cpu[i]->marginals[v][x]).margin(1e-9));
        if (!cpu[i]->assignment.empty()) // ties may differ: compare the assignments' weights
            CHECK(logWeight(model, gpu[i]->assignment) ==
                  Approx(logWeight(model, cpu[i]->assignment)).epsilon(1e-11).margin(1e-9));
    }
}

} // namespace

TEST_CASE("markov jt gpu: random Markov networks answer as brute force does", "[gpu][markov]") {
    std::mt19937 rng(43);
    for (int trial = 0; trial < 20; ++trial) {
        INFO("trial " << trial);
        const MarkovNet net = randomMarkovNet(rng, 1 + rng() % 7, /*huge=*/trial % 3 == 0);
        std::vector<std::vector<int>> cases;
        std::vector<Evidence> evidence;
        for (int k = 0; k < 9; ++k) {
            std::vector<int> e(net.domains.size(), -1);
            for (size_t v = 0; v < e.size() && k > 0; ++v)
                if (rng() % 3 == 0)
                    e[v] = static_cast<int>(rng() % net.domains[v]);
            cases.push_back(e);
            evidence.push_back(evidenceOf(e));
        }
        JunctionTreeOptions options;
        options.executor = "cuda";
        options.maxBatch = 1 + trial % 5;
        JunctionTreeModel model = markovTree(net, options, static_cast<uint64_t>(trial));
        const auto pr = model.run(Task::Pr, evidence);
        const auto mar = model.run(Task::Mar, evidence);
        const auto mpe = model.run(Task::Mpe, evidence);
        for (size_t c = 0; c < cases.size(); ++c) {
            INFO("case " << c);
            checkMarkovCase(net, cases[c], pr[c], mar[c], mpe[c]);
        }
    }
}

TEST_CASE("markov jt gpu: the UAI instances answer as the CPU does, batches included",
          "[gpu][markov]") {
    if (!uaiInstancesPresent()) {
        WARN("no " ZBDDC_BENCHMARKS_DIR "/uai: the instances are not checked");
        return;
    }
    std::mt19937 rng(47);
    for (const char *name : {"Grids_13", "Promedus_12", "Promedus_30", "Pedigree_12",
                             "Segmentation_11", "ObjectDetection_12"}) {
        INFO(name);
        JunctionTreeOptions cpuRun, gpuRun;
        cpuRun.executor = "cpu";
        gpuRun.executor = "cuda";
        OpenedUaiInstance cpu = openUaiInstance(name, cpuRun);
        OpenedUaiInstance gpu = openUaiInstance(name, gpuRun);
        const std::vector<Evidence> cases = casesFor(cpu, 7, rng);
        for (Task task : {Task::Pr, Task::Mar, Task::Mpe}) {
            INFO(taskName(task));
            checkSameAnswers(cpu.model, gpu.tree->run(task, cases), cpu.tree->run(task, cases));
        }
        // The instance's own case against the competition's marginals.
        const auto mar = gpu.tree->run(Task::Mar, gpu.cases);
        const auto want = uaiMarReference(name);
        REQUIRE(mar[0].ok());
        REQUIRE(want.has_value());
        for (size_t v = 0; v < want->size(); ++v)
            for (size_t s = 0; s < (*want)[v].size(); ++s)
                CHECK(std::fabs(mar[0]->marginals[v][s] - (*want)[v][s]) <= 1e-5);
    }
}
