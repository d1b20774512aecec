// The schedules of real networks (small BIF files from the shared benchmarks, compiled to their
// MLF ZBDD) compute what the circuit computes, at every -O level and in every semiring.
#include "backends/cuda/schedule/gpu_passes.h"
#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/frontends/zdd/zdd_lower.h"
#include "compiler/mlf/mlf_compile.h"
#include "compiler/passes/pipeline.h"
#include "compiler/passes/schedule_interpret.h"
#include "ir/interpret.h"

#include "tests/catch.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>

using namespace zbddc;

namespace {

// Every -O level's schedule of the network's MLF circuit, interpreted, equals the reference
// evaluator in all four semirings.
void checkSchedules(const std::string &dir, const char *name) {
    Result<BayesNet> net = readNetworkFile(dir + "/" + name + ".bif");
    REQUIRE(net.ok());
    Result<ZddModel> model = compileMlf(*net);
    REQUIRE(model.ok());
    const Circuit c = lowerZdd(*model);
    std::mt19937 rng(1);
    std::uniform_real_distribution<double> u(0.2, 1.0);
    std::vector<double> x(c.numInputs());
    for (double &v : x)
        v = u(rng);
    for (int level = 0; level <= 3; ++level) {
        PipelineOptions o = withGpuPasses({});
        o.level = level;
        o.verifyEach = true;
        o.device = DeviceShape{4, 8, 64, 256}; // small, so these networks reach the GPU phases
        o.gridMinOps = 16;
        Result<Schedule> s = buildSchedule(c, o);
        INFO(name << " -O" << level);
        REQUIRE(s.ok());
        for (Semiring ring :
             {Semiring::SumProduct, Semiring::MaxProduct, Semiring::MaxSum, Semiring::MinSum}) {
            Result<Evaluation> e = evaluate(c, x, ring);
            Result<std::vector<double>> got = interpretSchedule(*s, x, ring);
            REQUIRE(got.ok());
            const double want = e->values[c.outputs[0]];
            REQUIRE(std::fabs(got->at(0) - want) <= 1e-12 * std::fabs(want));
        }
    }
}

std::string networksDir() {
    const std::string dir = std::string(ZBDDC_BENCHMARKS_DIR) + "/bn";
    REQUIRE(std::filesystem::exists(dir));
    return dir;
}

} // namespace

TEST_CASE("schedules of small real networks agree with the reference evaluator") {
    const std::string dir = networksDir();
    for (const char *name : {"asia", "cancer", "earthquake", "sachs", "survey", "alarm"})
        checkSchedules(dir, name);
}

// Run by the `slow` test test_passes_networks_slow: every other network the MLF route compiles.
TEST_CASE("schedules of the larger real networks agree with the reference evaluator", "[.][slow]") {
    const std::string dir = networksDir();
    for (const char *name : {"insurance", "water", "hailfinder", "pathfinder"})
        checkSchedules(dir, name);
}
