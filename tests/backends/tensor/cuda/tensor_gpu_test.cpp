// The generated kernels on a real GPU against the reference interpreter (random programs, table
// by table, bit-exact on integer costs) and against toulbar2's optima through the solver.
// Exits 77 (skipped) where no GPU is present.
#include "backends/cuda/driver.h"
#include "backends/tensor/cpu/tensor_cpu.h"
#include "backends/tensor/cuda/device/staged_copies.h"
#include "backends/tensor/cuda/plan/narrow_costs.h"
#include "backends/tensor/cuda/run/tensor_gpu.h"
#include "backends/tensor/devices/chunk_layout.h"
#include "compiler/elimination/bucket_program.h"
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "compiler/frontends/wcsp/wcsp_reader.h"
#include "ir/tensor_interpret.h"
#include "runtime/bucket_elimination/solve_be.h"
#include "runtime/tensor/tensor_executor.h"

#include "tests/backends/tensor/cuda/host_kernel_programs.h"
#include "tests/catch.hpp"
#include "tests/support/bn_brute_force.h"
#include "tests/support/close.h"
#include "tests/support/int64_programs.h"
#include "tests/support/min_fill_order.h"
#include "tests/support/random_programs.h"
#include "tests/support/skip.h"
#include "tests/support/wide_cost_wcsp.h"
#include "tests/support/wide_networks.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

using namespace zbddc;
using namespace zbddc::cuda;
using zbddc::testing::minFillOrder;

namespace {
const bool gpuPresent = testing::skipProgramUnless(cudaAvailable(), "no GPU");

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
        if (trial % 3 == 1) { // row groups (tensor_kernels.h) on every table they fit
            o.kernels.rowGroupMinRows = 0;
            o.kernels.rowGroupMinStride = 1;
            o.kernels.rowGroupPairsWhenExpanding = trial % 2 == 0; // pairs on reductions too
        }
        auto gpu = runTensorProgramCuda(*p, o);
        INFO("trial " << trial << ": " << (gpu ? "" : gpu.error().str()));
        REQUIRE(gpu.ok());
        CHECK(*gpu == *ref);
    }
}

TEST_CASE("a prepared GPU program run again with new inputs equals the interpreter each time",
          "[gpu]") {
    // The second and later runs launch the levels captured by the first as one graph, and read
    // the small tables back with one copy: both must see each run's inputs, given one table at a
    // time (setInput) or all at once (setInputs: one copy where they lie side by side).
    std::mt19937 rng(29);
    auto executor = makeTensorExecutor("cuda", {});
    REQUIRE(executor.ok());
    for (int trial = 0; trial < 10; ++trial) {
        const CostNetwork net =
            testing::randomNetwork(rng, 4 + rng() % 6, 3 + rng() % 8, 6, 4, 50, trial % 2);
        auto p = buildBucketProgram(net, minFillOrder(net), {trial % 2 == 0, {}});
        REQUIRE(p.ok());
        auto prepared = (*executor)->prepare(*p);
        REQUIRE(prepared.ok());
        TensorProgram changed = *p;
        for (int run = 0; run < 3; ++run) {
            auto ref = interpretTensorProgram(changed);
            REQUIRE(ref.ok());
            auto gpu = (*prepared)->run();
            INFO("trial " << trial << " run " << run << ": " << (gpu ? "" : gpu.error().str()));
            REQUIRE(gpu.ok());
            for (uint32_t t = 0; t < changed.tables.size(); ++t)
                if (!changed.tables[t].input)
                    CHECK(gpu->tables[t] == (*ref)[t]);
            std::vector<uint32_t> inputs; // the next run's
            std::vector<std::span<const double>> values;
            for (uint32_t t = 0; t < changed.tables.size(); ++t)
                if (Table &table = changed.tables[t]; table.input && !table.sparse) {
                    for (double &v : table.values)
                        v = static_cast<double>(rng() % 40);
                    inputs.push_back(t);
                    values.emplace_back(table.values);
                    if (run % 2 == 0)
                        REQUIRE((*prepared)->setInput(t, table.values).ok());
                }
            if (run % 2 == 1)
                REQUIRE((*prepared)->setInputs(inputs, values).ok());
        }
    }
}

TEST_CASE("GPU row groups with interleaved tiles equal the interpreter", "[gpu]") {
    // Expanding joins whose largest input lacks a variable outside the row groups
    // (host_kernel_programs.h), their tiles interleaved: each table in one launch, and in chunks
    // that cut the variable's periods.
    std::mt19937 rng(29);
    for (uint32_t f : {5u, 4u, 7u}) {
        const TensorProgram p = testing::expandingJoinProgram(rng, f);
        auto ref = interpretTensorProgram(p);
        REQUIRE(ref.ok());
        for (const bool chunked : {false, true}) {
            GpuExecOptions o;
            o.kernels.rowGroupMinRows = 0;
            o.kernels.rowGroupMinStride = 1;
            o.kernels.interleaveMinBytes = 0;
            o.kernels.interleaveTileGroups = f - 3; // tiles of 5, 1 and 5 groups of 15 a value
            o.kernels.sharedInputMaxEntries = 0; // every input read from global memory
            if (chunked)
                o.chunkRows = 7;
            REQUIRE(rowGroupOf(p, 0, o.kernels).interleaved.size > 1);
            auto gpu = runTensorProgramCuda(p, o);
            INFO("f " << f << (chunked ? ", chunked" : "") << ": "
                      << (gpu ? "" : gpu.error().str()));
            REQUIRE(gpu.ok());
            CHECK(*gpu == *ref);
        }
    }
}

TEST_CASE("GPU generic kernels equal the interpreter, as the specialised kernels do", "[gpu]") {
    // Every op specialised, then every op that can be generic generic (generic_tensor_kernels.h:
    // its shape words passed at launch, op_launch.cpp): bucket programs on integer costs exactly,
    // batched junction trees (slices, InverseMax, warp per row) to rounding.
    std::mt19937 rng(19);
    for (int trial = 0; trial < 16; ++trial) {
        TensorProgram p;
        if (trial % 2 == 0) {
            const CostNetwork net = testing::randomNetwork(rng, 3 + rng() % 7, 2 + rng() % 10, 6, 4,
                                                           50, trial % 4 == 2);
            std::vector<uint32_t> evidence(net.numVariables(), UINT32_MAX);
            evidence[0] = 0;
            auto bucket = buildBucketProgram(net, minFillOrder(net), {trial % 4 == 0, evidence});
            REQUIRE(bucket.ok());
            p = std::move(*bucket);
        } else {
            const BayesNet net = testing::randomBayesNet(rng, 6 + trial / 2);
            p = testing::batchedTreeProgram(net, 5 + trial, trial % 4 == 1, trial % 4 == 3);
            p.fetch.clear(); // every table downloaded, to compare them all
        }
        auto ref = interpretTensorProgram(p);
        REQUIRE(ref.ok());
        for (const uint64_t genericMaxWork : {uint64_t{0}, UINT64_MAX}) {
            GpuExecOptions o;
            o.kernels.genericMaxWork = genericMaxWork;
            o.kernels.warpRowThreshold = trial % 3 ? 8 : 32;
            o.chunkRows = trial % 5 == 0 ? 7 : o.chunkRows; // launches that begin mid-table
            auto gpu = runTensorProgramCuda(p, o);
            INFO("trial " << trial << ", generic up to " << genericMaxWork << ": "
                          << (gpu ? "" : gpu.error().str()));
            REQUIRE(gpu.ok());
            if (trial % 2 == 0) {
                CHECK(*gpu == *ref);
                continue;
            }
            for (size_t t = 0; t < p.tables.size(); ++t) {
                if (p.tables[t].input)
                    continue;
                REQUIRE((*gpu)[t].size() == (*ref)[t].size());
                for (size_t r = 0; r < (*ref)[t].size(); ++r)
                    CHECK(testing::close((*gpu)[t][r], (*ref)[t][r]));
            }
        }
    }
}

// Out-of-core tables cross through the GPU's pinned staging (staged_copies.h): copies of several
// pieces and an odd tail, in the caller's stream order on both sides (a fill enqueued between the
// upload and the download must land between them).
TEST_CASE("staged copies carry pieces both ways in the caller's stream order", "[gpu]") {
    auto device = openDevice();
    REQUIRE(device.ok());
    Device &d = **device;
    auto staging = StagedCopies::of(d);
    REQUIRE(staging.ok());
    CHECK((*staging)->pinnedBytes() > 0);
    const size_t bytes = (size_t{3} << 26) + 12345; // three 64 MiB pieces and a tail
    std::vector<unsigned char> src(bytes), back(bytes, 0);
    std::mt19937 rng(5);
    for (auto &b : src)
        b = static_cast<unsigned char>(rng());
    auto buf = d.allocate(bytes);
    REQUIRE(buf.ok());
    auto stream = d.createStream();
    REQUIRE(stream.ok());
    const size_t filledAt = (size_t{1} << 26) - 100, filled = 4096; // across a piece boundary
    REQUIRE((*staging)->upload(buf->ptr(), src.data(), bytes, *stream).ok());
    REQUIRE(d.fill(buf->ptr() + filledAt, 0xAB, filled, *stream).ok());
    REQUIRE((*staging)->download(back.data(), buf->ptr(), bytes, *stream).ok());
    REQUIRE(d.synchronize(*stream).ok());
    std::fill(src.begin() + filledAt, src.begin() + filledAt + filled, 0xAB);
    CHECK(back == src);
    REQUIRE(d.destroyStream(*stream).ok());
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
        uint64_t total = 0;
        for (const Table &t : p->tables)
            total += 8 * t.entries();
        GpuExecOptions o;
        // From the smallest budget the planner accepts (inputs staged whole) to an eighth more.
        o.memoryBudgetBytes = testing::smallestBudget(*p, {0, 2048}) + rng() % (total / 8 + 1);
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

// Inputs are sliced along the chunk's fixed variables (chunk_plan.h), so the budget can be far
// below the largest table: here 4 times smaller, and each step uploads only the rows it reads.
TEST_CASE("SPOT5 404 solves out of core with its largest table 4x the budget", "[gpu]") {
    const std::string path = std::string(ZBDDC_BENCHMARKS_DIR) + "/wcsp/404.wcsp";
    REQUIRE(std::filesystem::exists(path));
    auto net = readCostNetworkFile(path);
    REQUIRE(net.ok());
    auto p = buildBucketProgram(*net, minFillOrder(*net), {true, {}});
    REQUIRE(p.ok());
    auto cpu = runTensorProgramCpu(*p, {});
    REQUIRE(cpu.ok());
    uint64_t largestTable = 0, total = 0;
    for (const Table &t : p->tables) {
        total += 8 * t.entries();
        largestTable = std::max(largestTable, 8 * t.entries());
    }
    GpuExecOptions o;
    o.memoryBudgetBytes = largestTable / 4;
    GpuExecStats st;
    auto gpu = runTensorProgramCuda(*p, o, &st);
    INFO("budget " << o.memoryBudgetBytes << " B, tables " << total << " B, "
                   << (gpu ? "" : gpu.error().str()));
    REQUIRE(gpu.ok());
    CHECK(st.outOfCore);
    CHECK(*gpu == *cpu);
    std::printf("404 out of core: budget %.2f MiB, all tables %.1f MiB, largest %.1f MiB, %llu "
                "steps, %.1f ms (host in copy steps: up %.1f ms, down %.1f ms)\n",
                o.memoryBudgetBytes / 1048576.0, total / 1048576.0, largestTable / 1048576.0,
                static_cast<unsigned long long>(st.chunks), st.kernelMs,
                st.uploadMs, st.downloadMs);
}

// Every slicing case on the device: all inputs sliced (nothing staged in shared memory), budgets
// at the smallest the planner accepts, eliminated spaces split (the kernels' elimination-range
// variant), scrambled layouts re-laid out on the host — against the reference interpreter.
TEST_CASE("GPU out-of-core steps (sliced inputs, split eliminations, relayout) equal the "
          "interpreter",
          "[gpu]") {
    std::mt19937 rng(29);
    int relaid = 0, split = 0;
    for (int trial = 0; trial < 40; ++trial) {
        TensorProgram p = trial % 2
                              ? testing::randomBucketProgram(rng, trial % 3 != 0, trial % 4 == 1)
                              : testing::randomWideEliminationProgram(rng);
        if (trial % 3 == 2)
            p = testing::scrambleLayouts(std::move(p), rng);
        auto ref = interpretTensorProgram(p);
        REQUIRE(ref.ok());
        GpuExecOptions o;
        o.kernels.sharedInputMaxEntries = 0;
        o.kernels.warpRowThreshold = trial % 2 ? 2 : 32;
        ChunkPlanOptions po;
        po.wholeInputMaxEntries = 0;
        o.memoryBudgetBytes = testing::smallestBudget(relayoutForChunks(p), po);
        auto plan = planChunks(relayoutForChunks(p), {o.memoryBudgetBytes, 0});
        REQUIRE(plan.ok());
        for (const OpChunkPlan &op : plan->ops)
            split += op.elimSlices > 1;
        GpuExecStats st;
        auto gpu = runTensorProgramCuda(p, o, &st);
        INFO("trial " << trial << ": " << (gpu ? "" : gpu.error().str()));
        REQUIRE(gpu.ok());
        CHECK(*gpu == *ref);
        relaid += st.relaid;
        // The solve decodes on the host tables of the program that ran, re-laid out or not.
        std::vector<uint32_t> want(p.domainSizes.size(), 0), got = want;
        recoverAssignment(p, *ref, want);
        GpuExecStats solved;
        auto optimum = solveTensorProgramCuda(p, got, o, &solved);
        REQUIRE(optimum.ok());
        CHECK(solved.outOfCore);
        CHECK(*optimum == programResult(p, *ref));
        CHECK(got == want);
    }
    CHECK(relaid > 3);
    CHECK(split > 5);
}

// Tables beyond device memory: a problem whose largest table is several times the device memory —
// here a forced budget 8 times smaller than it — solves on the GPU with the CPU path's cost and
// assignment exactly (same messages, so the same traceback).
TEST_CASE("wide-bucket networks with tables 8x the budget solve exactly as on the CPU", "[gpu]") {
    const bench::GeneratedNetwork nets[] = {bench::bandNetwork(16, 8, 4, 3),
                                            bench::starNetwork({7, 6, 5, 4, 4, 3, 3, 2, 2}, 4, 4)};
    for (const auto &g : nets) {
        auto p = buildBucketProgram(g.network, g.order);
        REQUIRE(p.ok());
        uint64_t largest = 0;
        for (const Table &t : p->tables)
            largest = std::max(largest, 8 * t.entries());
        auto cpu = runTensorProgramCpu(*p, {});
        REQUIRE(cpu.ok());
        GpuExecOptions o;
        o.memoryBudgetBytes = largest / 8;
        GpuExecStats st;
        auto gpu = runTensorProgramCuda(*p, o, &st);
        INFO(g.network.name << ": " << (gpu ? "" : gpu.error().str()));
        REQUIRE(gpu.ok());
        CHECK(st.outOfCore);
        CHECK(largest >= 4 * st.budgetBytes);
        CHECK(*gpu == *cpu);
        const Cost cost = programResult(*p, *gpu);
        CHECK(cost == programResult(*p, *cpu));
        std::vector<uint32_t> a(g.network.numVariables(), 0), b = a;
        recoverAssignment(*p, *gpu, a);
        recoverAssignment(*p, *cpu, b);
        CHECK(a == b);
        CHECK(assignmentCost(g.network, a) == cost);
        if (g.network.name.starts_with("star"))
            CHECK(cost == bench::starOptimum(g.network));
        std::vector<uint32_t> solved(g.network.numVariables(), 0);
        auto optimum = solveTensorProgramCuda(*p, solved, o);
        REQUIRE(optimum.ok());
        CHECK(*optimum == cost);
        CHECK(solved == b);
        std::printf("%s: largest table %.2f MiB, budget %.2f MiB, %llu steps\n",
                    g.network.name.c_str(), largest / 1048576.0, st.budgetBytes / 1048576.0,
                    static_cast<unsigned long long>(st.chunks));
    }
}

TEST_CASE("GPU bucket elimination agrees with the CPU path on the benchmark WCSPs", "[gpu]") {
    const std::string dir = std::string(ZBDDC_BENCHMARKS_DIR) + "/wcsp";
    REQUIRE(std::filesystem::exists(dir));
    for (const char *name : {"4queens", "warehouse", "zebra", "example", "404"}) {
        auto net = readCostNetworkFile(dir + "/" + name + ".wcsp");
        REQUIRE(net.ok());
        BeOptions cpu;
        BeOptions gpu;
        gpu.executor = "cuda";
        auto a = solveBucketElimination(*net, cpu);
        auto b = solveBucketElimination(*net, gpu);
        INFO(name << ": " << (b ? b->device.label() : b.error().str()));
        REQUIRE(a.ok());
        REQUIRE(b.ok());
        CHECK(a->cost == b->cost);
        CHECK(assignmentCost(*net, b->assignment) == a->cost);
    }
}

TEST_CASE("the VALUE phase on the device picks recoverAssignment's assignment", "[gpu][value]") {
    std::mt19937 rng(29);
    for (int trial = 0; trial < 30; ++trial) {
        const CostNetwork net =
            testing::randomNetwork(rng, 3 + rng() % 7, 2 + rng() % 10, trial % 3 ? 6 : 40,
                                   trial % 3 ? 4 : 2, trial % 4 ? 50 : 2, trial % 2);
        std::vector<uint32_t> evidence;
        if (trial % 3 == 2) {
            evidence.assign(net.numVariables(), UINT32_MAX);
            evidence[1] = rng() % net.domainSizes[1];
        }
        auto p = buildBucketProgram(net, minFillOrder(net), {trial % 4 != 0, evidence});
        REQUIRE(p.ok());
        auto ref = interpretTensorProgram(*p);
        REQUIRE(ref.ok());
        std::vector<uint32_t> host(net.numVariables(), 0);
        for (size_t v = 0; v < evidence.size(); ++v)
            if (evidence[v] != UINT32_MAX)
                host[v] = evidence[v];
        std::vector<uint32_t> device = host;
        recoverAssignment(*p, *ref, host);
        GpuExecOptions o;
        const bool graphs = trial % 2 == 0; // graph and direct launches alike
        o.switches.graphs = graphs;
        o.switches.narrowCosts = trial % 4 < 2; // float tables where they fit, and doubles
        GpuExecStats st;
        auto optimum = solveTensorProgramCuda(*p, device, o, &st);
        INFO("trial " << trial << ": " << (optimum ? "" : optimum.error().str()));
        REQUIRE(optimum.ok());
        CHECK(st.valueOnDevice);
        CHECK(st.graph == (graphs && !p->ops.empty())); // no op, nothing to capture (trial 4)
        CHECK(st.float32 == (o.switches.narrowCosts && fitsFloat32(*p)));
        CHECK(*optimum == programResult(*p, *ref));
        CHECK(device == host);
        // Solved again: the modules loaded above serve (tensor_modules.h), the answer is the same.
        std::vector<uint32_t> again = host;
        for (uint32_t v = 0; v < again.size(); ++v)
            if (evidence.empty() || evidence[v] == UINT32_MAX)
                again[v] = 0;
        GpuExecStats st2;
        auto second = solveTensorProgramCuda(*p, again, o, &st2);
        REQUIRE(second.ok());
        CHECK(st2.modulesReused);
        CHECK(*second == *optimum);
        CHECK(again == host);
    }
}

TEST_CASE("GPU VALUE phase: benchmark WCSPs' assignments cost the CPU's optimum, graphs on and "
          "off",
          "[gpu][value]") {
    const std::string dir = std::string(ZBDDC_BENCHMARKS_DIR) + "/wcsp";
    REQUIRE(std::filesystem::exists(dir));
    for (const char *name : {"4queens", "warehouse", "zebra", "example", "404"}) {
        auto net = readCostNetworkFile(dir + "/" + name + ".wcsp");
        REQUIRE(net.ok());
        auto cpu = solveBucketElimination(*net, {});
        REQUIRE(cpu.ok());
        for (const bool graph : {true, false}) {
            BeOptions gpu;
            gpu.executor = "cuda";
            gpu.execution.gpuSwitches.graphs = graph;
            auto b = solveBucketElimination(*net, gpu);
            INFO(name << " graph " << graph << ": " << (b ? b->device.label() : b.error().str()));
            REQUIRE(b.ok());
            CHECK(b->stats.execution.valueOnDevice);
            CHECK(b->stats.execution.graph == graph);
            CHECK(b->cost == cpu->cost);
            CHECK(assignmentCost(*net, b->assignment) == cpu->cost);
        }
    }
}

TEST_CASE("int64 costs beyond 2^53 on the GPU: kernels, out of core and the VALUE phase equal the "
          "interpreter",
          "[gpu][int64]") {
    std::mt19937 rng(53);
    for (int trial = 0; trial < 20; ++trial) {
        const CostNetwork net =
            testing::randomNetwork(rng, 3 + rng() % 7, 2 + rng() % 10, 6, 4, 50, trial % 2);
        auto p = buildBucketProgram(net, minFillOrder(net), {trial % 4 != 0, {}});
        REQUIRE(p.ok());
        testing::widenToInt64(*p);
        auto ref = interpretTensorProgram(*p);
        REQUIRE(ref.ok());
        GpuExecOptions o;
        o.kernels.warpRowThreshold = trial % 2 ? 2 : 32;
        if (trial % 3 == 0) { // out of core
            o.memoryBudgetBytes = testing::smallestBudget(*p, {0, 2048});
        }
        GpuExecStats st;
        auto gpu = runTensorProgramCuda(*p, o, &st);
        INFO("trial " << trial << ": " << (gpu ? "" : gpu.error().str()));
        REQUIRE(gpu.ok());
        CHECK(!st.float32);
        CHECK(testing::sameWords(*gpu, *ref));
        std::vector<uint32_t> host(net.numVariables(), 0), device = host;
        recoverAssignment(*p, *ref, host);
        GpuExecOptions inCore;
        auto optimum = solveTensorProgramCuda(*p, device, inCore, &st);
        REQUIRE(optimum.ok());
        CHECK(st.valueOnDevice);
        CHECK(wordInt64(*optimum) == wordInt64(programResult(*p, *ref)));
        CHECK(device == host);
    }
}

TEST_CASE("int64 totals at the limit saturate on the GPU (kernels, out of core, VALUE phase) as "
          "in the interpreter",
          "[gpu][int64]") {
    // Totals straddle 2^63 - 1 (testing::widenToLimit): kernels that added without saturating
    // would wrap to negative costs and win the min.
    std::mt19937 rng(55);
    int saturated = 0, feasible = 0;
    for (int trial = 0; trial < 12; ++trial) {
        const CostNetwork net =
            testing::randomConnectedNetwork(rng, 3 + rng() % 6, 2 + rng() % 8, 6, 3, 20, trial % 2);
        auto p = buildBucketProgram(net, minFillOrder(net), {trial % 4 != 0, {}});
        REQUIRE(p.ok());
        const Cost best = testing::bruteForceOptimum(net);
        const int64_t bestCost = std::isinf(best) ? 0 : static_cast<int64_t>(best);
        const auto w = testing::widenToLimit(*p, std::max<int64_t>(bestCost + trial % 3 - 1, 0));
        auto ref = interpretTensorProgram(*p);
        REQUIRE(ref.ok());
        GpuExecOptions o;
        o.kernels.warpRowThreshold = trial % 2 ? 2 : 32;
        if (trial % 3 == 0) { // out of core
            o.memoryBudgetBytes = testing::smallestBudget(*p, {0, 2048});
        }
        auto gpu = runTensorProgramCuda(*p, o);
        INFO("trial " << trial << ": limit " << w.limit << ", optimum " << best
                      << (gpu ? "" : ": " + gpu.error().str()));
        REQUIRE(gpu.ok());
        CHECK(testing::sameWords(*gpu, *ref));
        std::vector<uint32_t> host(net.numVariables(), 0), device = host;
        recoverAssignment(*p, *ref, host);
        GpuExecStats st;
        auto optimum = solveTensorProgramCuda(*p, device, GpuExecOptions{}, &st);
        REQUIRE(optimum.ok());
        CHECK(st.valueOnDevice);
        CHECK(wordInt64(*optimum) == w.total(best));
        CHECK(device == host);
        ++(wordInt64(*optimum) == kInt64Forbidden ? saturated : feasible);
    }
    CHECK(saturated > 0);
    CHECK(feasible > 0);
}

TEST_CASE("a WCSP beyond 2^53 solves exactly on the GPU executors (cuda, split; incomplete tables "
          "on the CPU)",
          "[gpu][int64]") {
    std::mt19937_64 rng(54);
    for (int trial = 0; trial < 8; ++trial) {
        const auto w = testing::wideCostWcsp(rng, 7, 10, 54 + trial % 5, 63);
        auto net = parseWcsp(w.text, "wide.wcsp");
        REQUIRE(net.ok());
        const __int128 expected = w.optimum();
        for (const char *executor : {"cuda", "split"})
            for (bool incomplete : {false, true}) {
                BeOptions o;
                o.executor = executor;
                o.incompleteTables = incomplete;
                o.execution.splitThresholdEntries = 8; // the split puts larger buckets on the GPU
                auto sol = solveBucketElimination(*net, o);
                INFO("trial " << trial << " " << executor << (incomplete ? " incomplete" : "")
                              << (sol ? "" : ": " + sol.error().str()));
                REQUIRE(sol.ok());
                // Incomplete tables run on the CPU executor, whichever executor was named.
                CHECK((sol->device.kind == DeviceReport::Kind::Cpu) == incomplete);
                CHECK(sol->feasible == (expected >= 0));
                if (sol->feasible) {
                    CHECK(static_cast<__int128>(wordInt64(sol->cost)) == expected);
                    CHECK(w.cost(sol->assignment) == expected);
                }
            }
    }
}
