// The incomplete-table kernels (backends/tensor/cuda/codegen/incomplete_kernels.inc) compiled as
// host C++ and run on the emulated TensorDevice (emulated_tensor_device.h: blocks one after
// another, a block's threads as OS threads meeting at a barrier for __syncthreads), driven by the
// same steps as the GPU (incomplete_run.h): its result must equal the CPU executor table by table.
// This checks the kernels' logic and the host side here, where no GPU is;
// incomplete_gpu_test.cpp beside it checks the real device.
#include "backends/tensor/cpu/incomplete_cpu.h"
#include "backends/tensor/cuda/codegen/incomplete_kernels.h"
#include "backends/tensor/cuda/run/incomplete_run.h"
#include "compiler/elimination/bucket_program.h"

#include "tests/backends/tensor/cuda/emulated_tensor_device.h"
#include "tests/catch.hpp"
#include "tests/support/int64_programs.h"
#include "tests/support/min_fill_order.h"
#include "tests/support/random_networks.h"

#include <barrier>
#include <cstring>
#include <functional>
#include <map>
#include <math.h>
#include <thread>
#include <utility>

namespace emu {
struct Dim {
    unsigned x = 0;
};
thread_local Dim threadIdx, blockIdx;
Dim blockDim, gridDim;
std::barrier<> *blockBarrier = nullptr;
} // namespace emu
using emu::blockDim;
using emu::blockIdx;
using emu::gridDim;
using emu::threadIdx;

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static // blocks run one at a time, so one array per kernel serves
#define __syncthreads() emu::blockBarrier->arrive_and_wait()
#define ZB_RUN ((unsigned long long)zbddc::cuda::kIncompleteRun)
#define ZB_SCAN_TILE zbddc::cuda::kIncompleteScanTile
#define ZB_INCOMPLETE_KERNELS(...) __VA_ARGS__
#include "backends/tensor/cuda/codegen/incomplete_kernels.inc"
#undef ZB_INCOMPLETE_KERNELS

namespace {

using namespace zbddc;
using zbddc::testing::minFillOrder;

// Calls a kernel with its arguments given as cuLaunchKernel takes them.
template <class... A, size_t... I>
void callWith(void (*f)(A...), void **args, std::index_sequence<I...>) {
    f(*reinterpret_cast<std::remove_cv_t<A> *>(args[I])...);
}
template <class... A> std::function<void(void **)> adapt(void (*f)(A...)) {
    return [f](void **args) { callWith(f, args, std::index_sequence_for<A...>{}); };
}

// Each kernel under its name, as the GPU's module has it.
#define ZB_NAMED(kernel)                                                                           \
    { #kernel, adapt(kernel) }
const std::map<std::string, std::function<void(void **)>> &emulatedKernels() {
    static const std::map<std::string, std::function<void(void **)>> kernels{
        ZB_NAMED(zb_inc_keys),       ZB_NAMED(zb_radix_count),    ZB_NAMED(zb_radix_scatter),
        ZB_NAMED(zb_scan_tiles),     ZB_NAMED(zb_scan_add),       ZB_NAMED(zb_heads),
        ZB_NAMED(zb_groups),         ZB_NAMED(zb_join_count),     ZB_NAMED(zb_join_write),
        ZB_NAMED(zb_output_keys),    ZB_NAMED(zb_segment_min),    ZB_NAMED(zb_join_count_i64),
        ZB_NAMED(zb_join_write_i64), ZB_NAMED(zb_segment_min_i64)};
    return kernels;
}
#undef ZB_NAMED

// A launch as the GPU runs it: every block, each thread with its indices.
Status launchEmulated(const std::string &kernel, unsigned grid, unsigned block, void **args) {
    const auto it = emulatedKernels().find(kernel);
    if (it == emulatedKernels().end())
        return error("no kernel " + kernel);
    blockDim.x = block;
    gridDim.x = grid;
    const bool synchronises = kernel == "zb_scan_tiles"; // the only one with __syncthreads
    for (unsigned b = 0; b < grid; ++b) {
        auto thread = [&, b](unsigned t) {
            blockIdx.x = b;
            threadIdx.x = t;
            it->second(args);
        };
        if (!synchronises) {
            for (unsigned t = 0; t < block; ++t)
                thread(t);
            continue;
        }
        std::barrier<> barrier(block);
        emu::blockBarrier = &barrier;
        std::vector<std::thread> threads;
        for (unsigned t = 0; t < block; ++t)
            threads.emplace_back(thread, t);
        for (auto &t : threads)
            t.join();
    }
    return Ok{};
}

// The program run on an emulated device with the kernels above.
Result<std::vector<TableData>> runEmulated(const TensorProgram &p,
                                           const incomplete::DeviceRunOptions &options = {}) {
    testing::EmulatedTensorDevice device(p);
    device.kernels = launchEmulated;
    return incomplete::runIncompleteOnDevice(device, p, options);
}

} // namespace

TEST_CASE("emulated device kernels equal the CPU executor of incomplete tables",
          "[incomplete][emulated]") {
    std::mt19937 rng(41);
    size_t ops = 0;
    for (int trial = 0; trial < 24; ++trial) {
        CostNetwork net = testing::randomNetwork(rng, 3 + rng() % 6, 2 + rng() % 9, 5, 3, 30, true);
        net.upperBound = trial % 3 == 0 ? 1000 : 40 + rng() % 60;
        for (auto &f : net.functions) {
            for (auto &c : f.costs)
                if (c >= net.upperBound)
                    c = kForbidden;
            if (f.defaultCost >= net.upperBound)
                f.defaultCost = kForbidden;
        }
        std::vector<uint32_t> evidence;
        if (trial % 4 == 1) {
            evidence.assign(net.numVariables(), UINT32_MAX);
            evidence[0] = rng() % net.domainSizes[0];
        }
        auto p = buildBucketProgram(net, minFillOrder(net), {trial % 2 == 0, evidence});
        REQUIRE(p.ok());
        REQUIRE(markIncomplete(*p, net.upperBound).ok());
        IncompleteExecOptions cpuOptions;
        cpuOptions.completeAbove = 2.0; // every table incomplete, as on the device
        auto cpu = runIncompleteTensorProgramCpu(*p, cpuOptions);
        auto emulated = runEmulated(*p);
        REQUIRE(cpu.ok());
        INFO("trial " << trial << (emulated ? "" : ": " + emulated.error().message) << "\n"
                      << p->dump());
        REQUIRE(emulated.ok());
        for (const TensorOp &op : p->ops) {
            CHECK((*emulated)[op.output].rows == (*cpu)[op.output].rows);
            CHECK((*emulated)[op.output].values == (*cpu)[op.output].values);
            ++ops;
        }
        const double optimum = programResultOf(*p, *emulated);
        CHECK((optimum >= net.upperBound ? kForbidden : optimum) ==
              testing::bruteForceOptimum(net, evidence));
    }
    CHECK(ops > 50);
}

TEST_CASE("emulated device kernels equal the CPU executor on int64 costs beyond 2^53",
          "[incomplete][emulated][int64]") {
    std::mt19937 rng(43);
    const int64_t base = (int64_t{1} << 56) + 1, scale = 3;
    for (int trial = 0; trial < 16; ++trial) {
        CostNetwork net = testing::randomNetwork(rng, 3 + rng() % 6, 2 + rng() % 9, 5, 3, 30, true);
        net.upperBound = 40 + rng() % 60;
        auto p = buildBucketProgram(net, minFillOrder(net), {trial % 2 == 0, {}});
        REQUIRE(p.ok());
        // Totals read one entry of each input table, so the bound maps as they do.
        int64_t inputs = 0;
        for (const Table &t : p->tables)
            inputs += t.input;
        testing::widenToInt64(*p, base, scale);
        const int64_t bound = inputs * base + scale * static_cast<int64_t>(net.upperBound);
        REQUIRE(markIncomplete(*p, int64Word(bound)).ok());
        IncompleteExecOptions cpuOptions;
        cpuOptions.completeAbove = 2.0;
        auto cpu = runIncompleteTensorProgramCpu(*p, cpuOptions);
        auto emulated = runEmulated(*p);
        REQUIRE(cpu.ok());
        INFO("trial " << trial << (emulated ? "" : ": " + emulated.error().message));
        REQUIRE(emulated.ok());
        for (const TensorOp &op : p->ops) {
            CHECK((*emulated)[op.output].rows == (*cpu)[op.output].rows);
            std::vector<int64_t> got, want;
            for (double w : (*emulated)[op.output].values)
                got.push_back(wordInt64(w));
            for (double w : (*cpu)[op.output].values)
                want.push_back(wordInt64(w));
            CHECK(got == want);
        }
        const int64_t optimum = wordInt64(programResultOf(*p, *emulated));
        const Cost bf = testing::bruteForceOptimum(net);
        if (bf < net.upperBound)
            CHECK(optimum == inputs * base + scale * static_cast<int64_t>(bf));
        else
            CHECK(optimum >= bound);
    }
}

TEST_CASE("emulated device kernels equal the CPU executor on int64 totals at the limit",
          "[incomplete][emulated][int64]") {
    // Totals straddle 2^63 - 1 (testing::widenToLimit) and the bound is the forbidden cost or just
    // above the optimum: a joined row and a match below the bound can add past 2^63, so a kernel
    // that added before it compared would wrap and keep them.
    std::mt19937 rng(44);
    int saturated = 0, feasible = 0;
    for (int trial = 0; trial < 8; ++trial) {
        const CostNetwork net =
            testing::randomConnectedNetwork(rng, 3 + rng() % 5, 2 + rng() % 8, 4, 3, 20, trial % 2);
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
        auto emulated = runEmulated(*p);
        REQUIRE(cpu.ok());
        INFO("trial " << trial << ": limit " << w.limit << ", optimum " << best
                      << (emulated ? "" : ": " + emulated.error().message));
        REQUIRE(emulated.ok());
        for (const TensorOp &op : p->ops) {
            CHECK((*emulated)[op.output].rows == (*cpu)[op.output].rows);
            CHECK(testing::sameWords({(*emulated)[op.output].values}, {(*cpu)[op.output].values}));
        }
        const int64_t optimum = wordInt64(programResultOf(*p, *emulated));
        CHECK(optimum == expected);
        ++(optimum == kInt64Forbidden ? saturated : feasible);
    }
    CHECK(saturated > 0);
    CHECK(feasible > 0);
}

TEST_CASE("emulated device: radix sort across many runs and scan across many tiles",
          "[incomplete][emulated]") {
    // One bucket whose tables have thousands of rows: several scan tiles and sort runs.
    CostNetwork net;
    net.domainSizes = {20, 20, 20};
    net.upperBound = 50;
    std::mt19937 rng(5);
    for (auto scope : {std::vector<uint32_t>{0, 1}, {1, 2}, {0, 2}}) {
        CostFunction f;
        f.scope = scope;
        for (int r = 0; r < 400; ++r)
            f.costs.push_back(rng() % 4 == 0 ? kForbidden : double(rng() % 30));
        net.functions.push_back(f);
    }
    auto p = buildBucketProgram(net, {0, 1, 2});
    REQUIRE(p.ok());
    REQUIRE(markIncomplete(*p, net.upperBound).ok());
    IncompleteExecOptions cpuOptions;
    cpuOptions.completeAbove = 2.0;
    auto cpu = runIncompleteTensorProgramCpu(*p, cpuOptions);
    auto emulated = runEmulated(*p);
    REQUIRE(cpu.ok());
    REQUIRE(emulated.ok());
    for (const TensorOp &op : p->ops) {
        CHECK((*emulated)[op.output].rows == (*cpu)[op.output].rows);
        CHECK((*emulated)[op.output].values == (*cpu)[op.output].values);
    }
    CHECK(programResultOf(*p, *emulated) == testing::bruteForceOptimum(net));
}

TEST_CASE("incomplete tables as steps: one device step per op, in program order, the join limit "
          "with each",
          "[incomplete][emulated]") {
    std::mt19937 rng(45);
    const CostNetwork net = testing::randomNetwork(rng, 6, 4, 5, 3, 30, true);
    auto p = buildBucketProgram(net, minFillOrder(net), {true, {}});
    REQUIRE(p.ok());
    REQUIRE(markIncomplete(*p, net.upperBound).ok());
    const std::vector<DeviceStep> steps = incomplete::incompleteSteps(*p, {1234});
    REQUIRE(steps.size() == p->ops.size());
    for (uint32_t o = 0; o < steps.size(); ++o) {
        CHECK(steps[o].kind == StepKind::Incomplete);
        CHECK(steps[o].device == 0);
        CHECK(steps[o].ops == std::vector<uint32_t>{o});
        CHECK(steps[o].joinLimit == 1234);
    }
    // The steps run on the device's kernels, not on the host.
    testing::EmulatedTensorDevice device(*p);
    device.kernels = launchEmulated;
    auto emulated = incomplete::runIncompleteOnDevice(device, *p);
    REQUIRE(emulated.ok());
    CHECK(device.kernelLaunches > p->ops.size());
    CHECK(programResultOf(*p, *emulated) == testing::bruteForceOptimum(net));
}

TEST_CASE("incomplete tables on a device: a join beyond the limit, or a device with no kernels, "
          "is an error",
          "[incomplete][emulated]") {
    CostNetwork net;
    net.domainSizes = {6, 6, 6};
    net.upperBound = 1000;
    for (auto scope : {std::vector<uint32_t>{0, 1}, {1, 2}}) {
        CostFunction f;
        f.scope = scope;
        f.costs.assign(36, 1.0);
        net.functions.push_back(f);
    }
    auto p = buildBucketProgram(net, {0, 1, 2});
    REQUIRE(p.ok());
    REQUIRE(markIncomplete(*p, net.upperBound).ok());
    REQUIRE(runEmulated(*p).ok());
    auto refused = runEmulated(*p, {35}); // the first bucket joins 6 x 36 rows
    REQUIRE(!refused.ok());
    CHECK(refused.error().message.find("beyond the limit of 35") != std::string::npos);
    testing::EmulatedTensorDevice bare(*p);
    auto none = incomplete::runIncompleteOnDevice(bare, *p);
    REQUIRE(!none.ok());
    CHECK(none.error().message.find("no kernels") != std::string::npos);
    // A device of tables alone: TensorDevice's own refusal.
    struct TablesOnly final : TensorDevice {
        Status reserve(uint32_t, RowSpan) override { return Ok{}; }
        Status release(uint32_t) override { return Ok{}; }
        Status upload(uint32_t, uint64_t, std::span<const double>) override { return Ok{}; }
        Status download(uint32_t, uint64_t, std::span<double>) override { return Ok{}; }
        Status launch(std::span<const DeviceTask>) override { return Ok{}; }
        Status wait() override { return Ok{}; }
    } tablesOnly;
    auto refusedByInterface = incomplete::runIncompleteOnDevice(tablesOnly, *p);
    REQUIRE(!refusedByInterface.ok());
    CHECK(refusedByInterface.error().message.find("runs no kernels by name") != std::string::npos);
}
