// Loopy BP on the GPU against the CPU executor: both designs forced and the plan's own choice,
// sum-product and max-product, with damping, flooding and residual rounds, on a Potts grid, the
// protein-like model (one instance) and alarm with a batch of sampled evidence; beliefs, Bethe
// estimates, iterations and convergence must agree. Skipped, saying why, without a GPU.
#include "runtime/loopy/loopy_gpu.h"
#include "runtime/loopy/loopy_tasks.h"
#include "runtime/sample_evidence.h"

#include "tests/catch.hpp"
#include "tests/support/skip.h"
#include "tests/support/synthetic_factor_graphs.h"

#include <cmath>

using namespace zbddc;
using namespace zbddc::testing;

namespace {

const bool gpuPresent = skipProgramUnless(loopyGpuUsable(), "no usable GPU");

void compare(const FactorGraph &g, const std::vector<Evidence> &cases, LoopyOptions o,
             std::optional<LoopyGpuDesign> force) {
    o.threads = 0;
    const auto cpu = runLoopyBp(g, cases, o);
    auto gpu = runLoopyBpGpu(g, cases, o, force);
    if (!gpu)
        FAIL(gpu.error().str());
    INFO(g.file << " " << gpu->design);
    for (size_t b = 0; b < cases.size(); ++b) {
        INFO("case " << b);
        const LoopyCase &c = cpu[b], &d = gpu->cases[b];
        CHECK(c.vanished == d.vanished);
        CHECK(c.converged == d.converged);
        CHECK(std::abs(int(c.iterations) - int(d.iterations)) <= 1); // rounding at the threshold
        REQUIRE(c.beliefs.size() == d.beliefs.size());
        double worst = 0;
        for (size_t i = 0; i < c.beliefs.size(); ++i)
            worst = std::max(worst, std::abs(c.beliefs[i] - d.beliefs[i]));
        CHECK(worst < 1e-6);
        if (o.semiring == LoopySemiring::SumProduct)
            CHECK(d.logPartition == Approx(c.logPartition).epsilon(1e-8));
    }
}

} // namespace

TEST_CASE("GPU loopy BP equals the CPU on grids and the protein-like model", "[loopy][gpu]") {
    const FactorGraph grid = pairwiseGrid(12, 5, 0.4, 7), protein = proteinLikeModel(11);
    std::vector<Evidence> cases(3, Evidence{std::vector<uint32_t>(grid.numVariables(), kNone), {}});
    cases[1].states[5] = 2;
    cases[2].states[100] = 4;
    const Evidence none{std::vector<uint32_t>(protein.numVariables(), kNone), {}};
    for (auto force : {std::optional<LoopyGpuDesign>{}, std::optional{LoopyGpuDesign::DataParallel},
                       std::optional{LoopyGpuDesign::Cooperative}})
        for (LoopySemiring s : {LoopySemiring::SumProduct, LoopySemiring::MaxProduct}) {
            LoopyOptions o;
            o.semiring = s;
            o.damping = s == LoopySemiring::MaxProduct ? 0.5 : 0.0;
            o.tolerance = 1e-9;
            o.maxIterations = 200;
            compare(grid, cases, o, force);
            o.maxIterations = 30;
            compare(protein, {none}, o, force);
        }
}

TEST_CASE("GPU loopy BP equals the CPU on alarm with a batch of evidence", "[loopy][gpu]") {
    auto net = readNetworkFile(ZBDDC_BENCHMARKS_DIR "/bn/alarm.bif");
    REQUIRE(net.ok());
    auto g = factorGraphOfNetwork(*net);
    REQUIRE(g.ok());
    const std::vector<Evidence> cases = sampleEvidence(*net, 100, 0.2, 5);
    LoopyOptions o;
    o.tolerance = 1e-8;
    compare(*g, cases, o, std::nullopt);
    compare(*g, cases, o, LoopyGpuDesign::Cooperative);
    o.updateOrder = LoopyUpdateOrder::Residual; // rounds of the messages that moved most
    compare(*g, cases, o, std::nullopt);
}

TEST_CASE("GPU residual rounds equal the CPU's on a grid and the protein-like model",
          "[loopy][gpu]") {
    const FactorGraph grid = pairwiseGrid(12, 5, 0.4, 7), protein = proteinLikeModel(11);
    std::vector<Evidence> cases(3, Evidence{std::vector<uint32_t>(grid.numVariables(), kNone), {}});
    cases[1].states[5] = 2;
    const Evidence none{std::vector<uint32_t>(protein.numVariables(), kNone), {}};
    for (LoopySemiring s : {LoopySemiring::SumProduct, LoopySemiring::MaxProduct}) {
        LoopyOptions o;
        o.updateOrder = LoopyUpdateOrder::Residual;
        o.semiring = s;
        o.damping = s == LoopySemiring::MaxProduct ? 0.5 : 0.0;
        o.tolerance = 1e-9;
        o.maxIterations = 300;
        compare(grid, cases, o, std::nullopt);
        o.maxIterations = 30;
        compare(protein, {none}, o, LoopyGpuDesign::DataParallel);
    }
}

TEST_CASE("Tasks asked of the GPU run there and answer as the CPU does", "[loopy][gpu]") {
    auto net = readNetworkFile(ZBDDC_BENCHMARKS_DIR "/bn/alarm.bif");
    REQUIRE(net.ok());
    auto g = factorGraphOfNetwork(*net);
    REQUIRE(g.ok());
    const std::vector<Evidence> cases = sampleEvidence(*net, 20, 0.2, 9);
    for (Task task : {Task::Mar, Task::Pr, Task::Mpe}) {
        LoopyOptions o;
        o.damping = task == Task::Mpe ? 0.5 : 0.0;
        const auto cpu = runLoopyTasks(*g, task, cases, o, DeviceKind::Cpu);
        const auto gpu = runLoopyTasks(*g, task, cases, o, DeviceKind::Cuda);
        for (size_t c = 0; c < cases.size(); ++c) {
            REQUIRE(cpu[c].ok() == gpu[c].ok());
            if (!gpu[c])
                continue;
            INFO(gpu[c]->device.label());
            CHECK(gpu[c]->device.label().rfind("cuda: ", 0) == 0);
            CHECK(gpu[c]->log10 == Approx(cpu[c]->log10).margin(1e-8));
            if (task == Task::Mpe)
                CHECK(gpu[c]->assignment == cpu[c]->assignment);
            for (size_t v = 0; v < cpu[c]->marginals.size(); ++v)
                for (size_t x = 0; x < cpu[c]->marginals[v].size(); ++x)
                    CHECK(gpu[c]->marginals[v][x] == Approx(cpu[c]->marginals[v][x]).margin(1e-6));
        }
    }
}
