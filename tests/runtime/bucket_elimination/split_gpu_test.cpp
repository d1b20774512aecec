// The host/device split on a real GPU (Fioretto et al. 2015 Fig. 2): small buckets on the CPU,
// large ones on the GPU, both at work within a level. Table by table equal to the reference
// interpreter on random programs at thresholds that put every op on one side or cut between them,
// and the optimum of the CPU path on the benchmark WCSPs (the solver recomputes each assignment's
// cost).
// Exits 77 (skipped) where no GPU is present.
#include "backends/cuda/driver.h"
#include "compiler/elimination/bucket_program.h"
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "ir/tensor_interpret.h"
#include "runtime/bucket_elimination/solve_be.h"
#include "runtime/tensor/tensor_executor.h"

#include "tests/catch.hpp"
#include "tests/support/min_fill_order.h"
#include "tests/support/random_networks.h"
#include "tests/support/skip.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

using namespace zbddc;
using zbddc::testing::minFillOrder;

namespace {
const bool gpuPresent = testing::skipProgramUnless(cuda::cudaAvailable(), "no GPU");
} // namespace

TEST_CASE("split execution equals the interpreter table by table", "[gpu][split]") {
    std::mt19937 rng(31);
    for (int trial = 0; trial < 20; ++trial) {
        const CostNetwork net =
            testing::randomNetwork(rng, 4 + rng() % 8, 3 + rng() % 10, 6, 4, 50, trial % 2);
        const auto order = minFillOrder(net);
        auto p = buildBucketProgram(net, order);
        REQUIRE(p.ok());
        auto ref = interpretTensorProgram(*p);
        REQUIRE(ref.ok());
        std::vector<uint64_t> work;
        for (uint32_t o = 0; o < p->ops.size(); ++o)
            work.push_back(opWorkEntries(*p, o));
        std::sort(work.begin(), work.end());
        for (uint64_t threshold : {uint64_t{0}, work.empty() ? 1 : work[work.size() / 2]}) {
            TensorExecutorOptions o;
            o.threads = 4;
            o.splitThresholdEntries = threshold;
            auto split = makeTensorExecutor("split", o);
            REQUIRE(split.ok());
            auto got = (*split)->run(*p);
            INFO("trial " << trial << " threshold " << threshold << ": "
                          << (got ? got->device.label() : got.error().str()));
            REQUIRE(got.ok());
            CHECK(got->device.kind == DeviceReport::Kind::Split);
            CHECK(got->tables == *ref);
        }
    }
}

TEST_CASE("split bucket elimination agrees with the CPU path on the benchmark WCSPs",
          "[gpu][split]") {
    const std::string dir = std::string(ZBDDC_BENCHMARKS_DIR) + "/wcsp";
    REQUIRE(std::filesystem::exists(dir));
    for (const char *name : {"4queens", "warehouse", "zebra", "example", "404"}) {
        auto net = readCostNetworkFile(dir + "/" + name + ".wcsp");
        REQUIRE(net.ok());
        auto cpu = solveBucketElimination(*net, BeOptions{});
        REQUIRE(cpu.ok());
        for (uint64_t threshold : {uint64_t{0}, uint64_t{1} << 10, kDefaultSplitThresholdEntries}) {
            BeOptions split;
            split.executor = "split";
            split.execution.splitThresholdEntries = threshold;
            auto got = solveBucketElimination(*net, split);
            INFO(name << " threshold " << threshold << ": "
                      << (got ? got->device.label() : got.error().str()));
            REQUIRE(got.ok());
            CHECK(got->device.kind == DeviceReport::Kind::Split);
            CHECK(got->cost == cpu->cost);
            CHECK(assignmentCost(*net, got->assignment) == cpu->cost);
            std::printf("%s threshold %llu: %s, %.1f ms solve\n", name,
                        static_cast<unsigned long long>(threshold), got->device.label().c_str(),
                        got->stats.solveMs);
        }
    }
}
