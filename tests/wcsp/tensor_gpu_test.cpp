// The generated kernels on a real GPU against the reference interpreter (random programs, table
// by table, bit-exact on integer costs) and against toulbar2's optima through the solver.
// Exits 77 (skipped) where no GPU is present.
#include "backends/cuda/driver.h"
#include "backends/cuda_tensor/tensor_gpu.h"
#include "backends/tensor_cpu/tensor_cpu.h"
#include "compiler/elimination/bucket_program.h"
#include "compiler/elimination/elimination_order.h"
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "ir/tensor_interpret.h"
#include "random_networks.h"
#include "runtime/bucket_elimination/solve_be.h"

#include "tests/catch.hpp"
#include "tests/skip.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

using namespace zbddc;
using namespace zbddc::cuda;

namespace {
const bool gpuPresent = testing::skipProgramUnless(cudaAvailable(), "no GPU");

std::vector<uint32_t> minFillOrder(const CostNetwork &net) {
    std::vector<std::vector<uint32_t>> scopes;
    for (const auto &f : net.functions)
        scopes.push_back(f.scope);
    return greedyOrder(buildInteractionGraph(net.domainSizes, scopes), OrderHeuristic::MinFill);
}
} // namespace

TEST_CASE("GPU tensor kernels equal the reference interpreter table by table", "[gpu]") {
    std::mt19937 rng(17);
    for (int trial = 0; trial < 30; ++trial) {
        const CostNetwork net =
            testing::randomNetwork(rng, 3 + rng() % 7, 2 + rng() % 10, 6, 4, 50, trial % 2);
        std::vector<uint32_t> evidence;
        if (trial % 3 == 2) {
            evidence.assign(net.numVariables(), UINT32_MAX);
            evidence[1] = rng() % net.domainSizes[1];
        }
        auto p = buildBucketProgram(net, minFillOrder(net), {trial % 4 != 0, evidence});
        REQUIRE(p.ok());
        auto ref = interpretTensorProgram(*p);
        REQUIRE(ref.ok());
        GpuExecOptions o;
        o.kernels.warpRowThreshold = trial % 2 ? 2 : 32;
        o.chunkRows = trial % 5 == 0 ? 7 : o.chunkRows; // several chunks per table
        auto gpu = runTensorProgramCuda(*p, o);
        INFO("trial " << trial << ": " << (gpu ? "" : gpu.error().str()));
        REQUIRE(gpu.ok());
        CHECK(*gpu == *ref);
    }
}

TEST_CASE("GPU out-of-core path (chunked outputs, small budgets) equals the interpreter", "[gpu]") {
    std::mt19937 rng(23);
    int chunked = 0;
    for (int trial = 0; trial < 30; ++trial) {
        const CostNetwork net =
            testing::randomNetwork(rng, 4 + rng() % 6, 3 + rng() % 8, 6, 4, 50, trial % 2);
        auto p = buildBucketProgram(net, minFillOrder(net), {trial % 3 != 0, {}});
        REQUIRE(p.ok());
        auto ref = interpretTensorProgram(*p);
        REQUIRE(ref.ok());
        uint64_t total = 0, largestInputs = 0;
        for (const Table &t : p->tables)
            total += 8 * t.entries();
        for (const TensorOp &op : p->ops) {
            uint64_t in = 0;
            for (uint32_t i : op.inputs)
                in += 8 * p->tables[i].entries();
            largestInputs = std::max(largestInputs, in);
        }
        GpuExecOptions o;
        o.memoryBudgetBytes = largestInputs + 8 + rng() % (total / 8 + 1);
        o.maxInFlight = 1 + trial % 3;
        o.kernels.warpRowThreshold = trial % 2 ? 2 : 32;
        GpuExecStats st;
        auto gpu = runTensorProgramCuda(*p, o, &st);
        INFO("trial " << trial << ": " << (gpu ? "" : gpu.error().str()));
        REQUIRE(gpu.ok());
        CHECK(*gpu == *ref);
        chunked += st.outOfCore && st.chunks > p->ops.size();
    }
    CHECK(chunked > 10);
}

// Inputs stay resident whole (chunk_plan.h), so the budget must hold the largest op's inputs; the
// program's tables together exceed it, and each output is produced in chunks.
TEST_CASE("SPOT5 404 solves out of core with its tables beyond the budget", "[gpu]") {
    const std::string path = std::string(ZBDDC_BENCHMARKS_DIR) + "/wcsp/404.wcsp";
    if (!std::filesystem::exists(path)) {
        WARN("skipped: " << path << " is absent");
        return;
    }
    auto net = readCostNetworkFile(path);
    REQUIRE(net.ok());
    auto p = buildBucketProgram(*net, minFillOrder(*net), {true, {}});
    REQUIRE(p.ok());
    auto cpu = runTensorProgramCpu(*p, {});
    REQUIRE(cpu.ok());
    uint64_t largestInputs = 0, largestTable = 0, total = 0;
    for (const Table &t : p->tables)
        total += 8 * t.entries();
    for (const TensorOp &op : p->ops) {
        uint64_t in = 0;
        for (uint32_t i : op.inputs)
            in += 8 * p->tables[i].entries();
        largestInputs = std::max(largestInputs, in);
        largestTable = std::max(largestTable, 8 * p->tables[op.output].entries());
    }
    GpuExecOptions o;
    o.memoryBudgetBytes = largestInputs + largestTable / 8;
    GpuExecStats st;
    auto gpu = runTensorProgramCuda(*p, o, &st);
    INFO("budget " << o.memoryBudgetBytes << " B, tables " << total << " B, "
                   << (gpu ? "" : gpu.error().str()));
    REQUIRE(gpu.ok());
    CHECK(st.outOfCore);
    CHECK(total > o.memoryBudgetBytes);
    CHECK(*gpu == *cpu);
    std::printf("404 out of core: budget %.1f MiB, all tables %.1f MiB, largest %.1f MiB, %llu "
                "chunks, %.1f ms\n",
                o.memoryBudgetBytes / 1048576.0, total / 1048576.0, largestTable / 1048576.0,
                static_cast<unsigned long long>(st.chunks), st.kernelMs);
}

TEST_CASE("GPU bucket elimination agrees with the CPU path on the benchmark WCSPs", "[gpu]") {
    const std::string dir = std::string(ZBDDC_BENCHMARKS_DIR) + "/wcsp";
    if (!std::filesystem::exists(dir)) {
        WARN("skipped: " << dir << " is absent");
        return;
    }
    for (const char *name : {"4queens", "warehouse", "zebra", "example", "404"}) {
        auto net = readCostNetworkFile(dir + "/" + name + ".wcsp");
        REQUIRE(net.ok());
        BeOptions cpu;
        BeOptions gpu;
        gpu.executor = BeExecutor::Cuda;
        auto a = solveBucketElimination(*net, cpu);
        auto b = solveBucketElimination(*net, gpu);
        INFO(name << ": " << (b ? b->device : b.error().str()));
        REQUIRE(a.ok());
        REQUIRE(b.ok());
        CHECK(a->cost == b->cost);
        CHECK(assignmentCost(*net, b->assignment) == a->cost);
    }
}
