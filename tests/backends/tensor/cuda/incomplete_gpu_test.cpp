// The GPU path of incomplete tables equals the CPU one table by table on random WCSPs with hard
// constraints (exact: integer costs), and the solver's optimum equals brute force. Exit 77 (skipped)
// without a GPU.
#include "backends/cuda/driver.h"
#include "backends/tensor/cpu/incomplete_cpu.h"
#include "backends/tensor/cuda/run/tensor_gpu.h"
#include "compiler/elimination/bucket_program.h"
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "runtime/bucket_elimination/solve_be.h"

#include "tests/catch.hpp"
#include "tests/support/int64_programs.h"
#include "tests/support/min_fill_order.h"
#include "tests/support/random_networks.h"
#include "tests/support/skip.h"

#include <filesystem>

using namespace zbddc;
using zbddc::testing::minFillOrder;

namespace {
const bool gpuPresent = testing::skipProgramUnless(cuda::cudaAvailable(), "no GPU");

CostNetwork tightNetwork(std::mt19937 &rng, int trial, uint32_t maxVars) {
    CostNetwork net =
        testing::randomNetwork(rng, 3 + rng() % maxVars, 2 + rng() % 12, 5, 3, 30, true);
    net.upperBound = trial % 3 == 0 ? 1000 : 40 + rng() % 60;
    for (auto &f : net.functions) {
        for (auto &c : f.costs)
            if (c >= net.upperBound)
                c = kForbidden;
        if (f.defaultCost >= net.upperBound)
            f.defaultCost = kForbidden;
    }
    return net;
}
} // namespace

TEST_CASE("GPU incomplete tables equal the CPU executor table by table", "[gpu][incomplete]") {
    std::mt19937 rng(31);
    for (int trial = 0; trial < 60; ++trial) {
        const CostNetwork net = tightNetwork(rng, trial, trial < 40 ? 6 : 12);
        std::vector<uint32_t> evidence;
        if (trial % 4 == 1) {
            evidence.assign(net.numVariables(), UINT32_MAX);
            evidence[0] = rng() % net.domainSizes[0];
        }
        auto p = buildBucketProgram(net, minFillOrder(net), {trial % 2 == 0, evidence});
        REQUIRE(p.ok());
        REQUIRE(markIncomplete(*p, net.upperBound).ok());
        IncompleteExecOptions cpuOptions;
        cpuOptions.completeAbove = 2.0; // keep every CPU table incomplete, as the GPU does
        auto cpu = runIncompleteTensorProgramCpu(*p, cpuOptions);
        auto gpu = cuda::runIncompleteTensorProgramCuda(*p);
        REQUIRE(cpu.ok());
        INFO("trial " << trial << (gpu ? "" : ": " + gpu.error().message) << "\n" << p->dump());
        REQUIRE(gpu.ok());
        for (const TensorOp &op : p->ops) {
            CHECK((*gpu)[op.output].rows == (*cpu)[op.output].rows);
            CHECK((*gpu)[op.output].values == (*cpu)[op.output].values);
        }
    }
}

TEST_CASE("GPU incomplete tables equal the CPU executor on int64 costs beyond 2^53",
          "[gpu][incomplete][int64]") {
    std::mt19937 rng(37);
    const int64_t base = (int64_t{1} << 56) + 1, scale = 3;
    for (int trial = 0; trial < 20; ++trial) {
        const CostNetwork net = tightNetwork(rng, trial, 6);
        auto p = buildBucketProgram(net, minFillOrder(net), {trial % 2 == 0, {}});
        REQUIRE(p.ok());
        int64_t inputs = 0; // totals read one entry of each input table: the bound maps so
        for (const Table &t : p->tables)
            inputs += t.input;
        testing::widenToInt64(*p, base, scale);
        const int64_t bound = inputs * base + scale * static_cast<int64_t>(net.upperBound);
        REQUIRE(markIncomplete(*p, int64Word(bound)).ok());
        IncompleteExecOptions cpuOptions;
        cpuOptions.completeAbove = 2.0;
        auto cpu = runIncompleteTensorProgramCpu(*p, cpuOptions);
        auto gpu = cuda::runIncompleteTensorProgramCuda(*p);
        REQUIRE(cpu.ok());
        INFO("trial " << trial << (gpu ? "" : ": " + gpu.error().message));
        REQUIRE(gpu.ok());
        for (const TensorOp &op : p->ops) {
            CHECK((*gpu)[op.output].rows == (*cpu)[op.output].rows);
            CHECK(testing::sameWords({(*gpu)[op.output].values}, {(*cpu)[op.output].values}));
        }
    }
}

TEST_CASE("GPU incomplete tables equal the CPU executor on int64 totals at the limit",
          "[gpu][incomplete][int64]") {
    // As the emulated test of the same name: sums of two feasible costs pass 2^63.
    std::mt19937 rng(45);
    for (int trial = 0; trial < 16; ++trial) {
        const CostNetwork net =
            testing::randomConnectedNetwork(rng, 3 + rng() % 6, 2 + rng() % 8, 4, 3, 20, trial % 2);
        auto p = buildBucketProgram(net, minFillOrder(net), {trial % 2 == 0, {}});
        REQUIRE(p.ok());
        const Cost best = testing::bruteForceOptimum(net);
        const int64_t bestCost = std::isinf(best) ? 0 : static_cast<int64_t>(best);
        const auto w = testing::widenToLimit(*p, std::max<int64_t>(bestCost + trial % 3 - 1, 0));
        const int64_t expected = w.total(best);
        const bool tight = trial % 4 >= 2 && expected < kInt64Forbidden;
        REQUIRE(markIncomplete(*p, int64Word(tight ? expected + 1 : kInt64Forbidden)).ok());
        IncompleteExecOptions cpuOptions;
        cpuOptions.completeAbove = 2.0;
        auto cpu = runIncompleteTensorProgramCpu(*p, cpuOptions);
        auto gpu = cuda::runIncompleteTensorProgramCuda(*p);
        REQUIRE(cpu.ok());
        INFO("trial " << trial << ": limit " << w.limit << ", optimum " << best
                      << (gpu ? "" : ": " + gpu.error().message));
        REQUIRE(gpu.ok());
        for (const TensorOp &op : p->ops) {
            CHECK((*gpu)[op.output].rows == (*cpu)[op.output].rows);
            CHECK(testing::sameWords({(*gpu)[op.output].values}, {(*cpu)[op.output].values}));
        }
        CHECK(wordInt64(programResultOf(*p, *gpu)) == expected);
    }
}

TEST_CASE("GPU incomplete tables: solver optimum equals brute force and the benchmark files agree "
          "with the CPU",
          "[gpu][incomplete]") {
    std::mt19937 rng(37);
    for (int trial = 0; trial < 20; ++trial) {
        const CostNetwork net = tightNetwork(rng, trial, 6);
        BeOptions o;
        o.incompleteTables = true;
        o.executor = "cuda";
        auto sol = solveBucketElimination(net, o);
        REQUIRE(sol.ok());
        CHECK(sol->cost == testing::bruteForceOptimum(net));
    }
    const std::string dir = std::string(ZBDDC_BENCHMARKS_DIR) + "/wcsp";
    if (!std::filesystem::exists(dir))
        return;
    for (const char *name : {"example", "warehouse", "zebra", "4queens", "404"}) {
        auto net = readCostNetworkFile(dir + "/" + name + ".wcsp");
        REQUIRE(net.ok());
        BeOptions cpu, gpu;
        cpu.incompleteTables = gpu.incompleteTables = true;
        gpu.executor = "cuda";
        auto a = solveBucketElimination(*net, cpu);
        auto b = solveBucketElimination(*net, gpu);
        INFO(name);
        REQUIRE(a.ok());
        REQUIRE(b.ok());
        CHECK(a->cost == b->cost);
        CHECK(b->device.kind == DeviceReport::Kind::Cuda);
        CHECK(b->device.notes == "incomplete tables");
    }
}
