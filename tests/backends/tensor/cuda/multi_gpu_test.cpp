// Bucket elimination over several devices on real GPUs, against the CPU executor table by table
// (integer costs: bit-exact). With one GPU the devices are logical (lists 0, 0,0 and 0,0,0: each
// its own streams, kernels and tables, rows crossing by device-to-device copies); where the
// machine has more, every count of distinct GPUs runs too (NCCL or peer copies). Also: buckets
// sliced across devices and independent buckets spread over them, `--devices 1` falling back to
// the single-GPU executor with a note, a request beyond the machine naming its GPUs, the solver's
// optimum equal to the CPU's, and NCCL — where it loads — moving bytes. Exits 77 without a GPU.
#include "backends/cuda/driver.h"
#include "backends/cuda/nccl.h"
#include "backends/tensor/cpu/tensor_cpu.h"
#include "backends/tensor/cuda/run/tensor_gpu.h"
#include "compiler/elimination/bucket_program.h"
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "runtime/bucket_elimination/solve_be.h"

#include "ir/tensor_interpret.h"
#include "tests/catch.hpp"

#include "tests/support/int64_programs.h"
#include "tests/support/random_programs.h"
#include "tests/support/skip.h"
#include "tests/support/wide_networks.h"

#include <filesystem>

using namespace zbddc;
using namespace zbddc::cuda;

namespace {
const bool gpuPresent = testing::skipProgramUnless(cudaAvailable(), "no GPU");

// The device lists to compare: logical devices on GPU 0, then 2..all distinct GPUs.
std::vector<std::vector<int>> deviceLists() {
    std::vector<std::vector<int>> lists = {{0}, {0, 0}, {0, 0, 0}};
    const int count = *deviceCount();
    for (int n = 2; n <= count; ++n) {
        lists.emplace_back();
        for (int i = 0; i < n; ++i)
            lists.back().push_back(i);
    }
    if (count >= 2)
        lists.push_back({0, 1, 0, 1}); // two logical devices on each of two GPUs
    return lists;
}

// The GPU executor's options for these logical devices and this plan.
GpuExecOptions on(const std::vector<int> &ordinals, const MultiDeviceOptions &plan,
                  GpuExecOptions g = {}) {
    g.devices = ordinals;
    g.multiDevice = plan;
    return g;
}

std::string text(const std::vector<int> &ordinals) {
    std::string s;
    for (int o : ordinals)
        s += (s.empty() ? "" : ",") + std::to_string(o);
    return s;
}

} // namespace

TEST_CASE("multi-GPU: sliced and spread buckets equal the CPU executor's tables on every device "
          "list",
          "[gpu][multi-device]") {
    std::mt19937 rng(53);
    size_t sliced = 0, spread = 0, ordered = 0, levelled = 0;
    for (const std::vector<int> &ordinals : deviceLists()) {
        for (int trial = 0; trial < 12; ++trial) {
            const TensorProgram p =
                trial % 4 == 3 ? testing::randomWideEliminationProgram(rng)
                               : testing::randomBucketProgram(rng, trial % 2, trial % 3 == 2);
            auto cpu = runTensorProgramCpu(p);
            REQUIRE(cpu.ok());
            MultiDeviceOptions o;
            o.sliceThresholdEntries = trial % 2 ? 1 : 256;
            o.wholeInputMaxEntries = trial % 3 ? 0 : 2048; // raised to what the kernels stage
            o.levelByLevel = trial % 4 == 1;               // the host waiting for every level
            o.keepLayouts = trial % 3 == 1;                // no outputs laid out for slicing
            GpuExecStats st;
            auto gpu = runTensorProgramCuda(p, on(ordinals, o), &st);
            INFO("devices " << text(ordinals) << ", trial " << trial << ": "
                            << (gpu ? st.transport : gpu.error().str()));
            REQUIRE(gpu.ok());
            CHECK(*gpu == *cpu);
            sliced += st.slicedOps;
            size_t busy = 0;
            for (uint64_t w : st.work)
                busy += w > 0;
            spread += busy > 1;
            (st.ordered ? ordered : levelled) += 1;
        }
    }
    CHECK(sliced > 10);
    CHECK(spread > 10);
    CHECK(ordered > 10);
    CHECK(levelled > 5);
}

TEST_CASE("multi-GPU solve: the VALUE phase on the first device, over tables left where the "
          "devices computed them, equals recoverAssignment on the CPU's tables",
          "[gpu][multi-device][value]") {
    std::mt19937 rng(61);
    size_t sliced = 0, floats = 0, doubles = 0, costs = 0, ordered = 0, levelled = 0;
    for (const std::vector<int> &ordinals : deviceLists()) {
        for (int trial = 0; trial < 12; ++trial) {
            TensorProgram p = trial % 4 == 3
                                  ? testing::randomWideEliminationProgram(rng)
                                  : testing::randomBucketProgram(rng, trial % 2, trial % 3 == 2);
            if (trial % 6 == 5 && p.semiring == Semiring::MinSum)
                testing::widenToInt64(p); // int64 costs beyond 2^53 (these costs are whole)
            auto cpu = runTensorProgramCpu(p);
            REQUIRE(cpu.ok());
            std::vector<uint32_t> expected(p.domainSizes.size(), 0);
            recoverAssignment(p, *cpu, expected);
            MultiDeviceOptions o;
            o.sliceThresholdEntries = trial % 2 ? 1 : 256;
            o.levelByLevel = trial % 4 == 1;
            o.keepLayouts = trial % 3 == 1;
            GpuExecOptions g;
            g.switches.narrowCosts = trial % 3 != 1; // doubles too where floats would do
            if (trial % 4 == 2) {           // row groups on these small tables, cut by shares
                g.kernels.rowGroupMinRows = 1;
                g.kernels.rowGroupMinStride = 1;
                g.kernels.rowGroupPairsWhenExpanding = false; // two variables where they fit
            }
            GpuExecStats st;
            std::vector<uint32_t> assignment(p.domainSizes.size(), 0);
            auto optimum = solveTensorProgramCuda(p, assignment, on(ordinals, o, g), &st);
            INFO("devices " << text(ordinals) << ", trial " << trial << ": "
                            << (optimum ? st.transport : optimum.error().str()));
            REQUIRE(optimum.ok());
            const double want = programResult(p, *cpu);
            CHECK((*optimum == want || (std::isnan(*optimum) && std::isnan(want))));
            CHECK(assignment == expected);
            CHECK(st.downloadBytes == 0);
            sliced += st.slicedOps;
            costs += p.semiring == Semiring::MinSumInt64;
            (st.float32 ? floats : doubles) += 1;
            (st.ordered ? ordered : levelled) += 1;
        }
    }
    CHECK(ordered > 10);
    CHECK(levelled > 5);
    CHECK(sliced > 10);
    CHECK(floats > 5);
    CHECK(doubles > 5);
    CHECK(costs > 0);
}

TEST_CASE("multi-GPU: a wide band's buckets sliced across devices equal the CPU's tables",
          "[gpu][multi-device]") {
    const bench::GeneratedNetwork g = bench::bandNetwork(12, 6, 5, 7); // messages of 5^6 entries
    auto p = buildBucketProgram(g.network, g.order);
    REQUIRE(p.ok());
    auto cpu = runTensorProgramCpu(*p);
    REQUIRE(cpu.ok());
    for (const std::vector<int> &ordinals : deviceLists())
        for (const bool levelByLevel : {false, true}) {
            MultiDeviceOptions o;
            o.sliceThresholdEntries = 1 << 12;
            o.levelByLevel = levelByLevel;
            GpuExecStats st;
            auto gpu = runTensorProgramCuda(*p, on(ordinals, o), &st);
            INFO("devices " << text(ordinals) << (levelByLevel ? ", level by level: " : ": ")
                            << (gpu ? st.transport : gpu.error().str()));
            REQUIRE(gpu.ok());
            CHECK(*gpu == *cpu);
            CHECK(st.ordered == !levelByLevel);
            if (ordinals.size() > 1) {
                CHECK(st.slicedOps > 0);
                CHECK(st.peerBytes > 0);
            }
        }
}

TEST_CASE("multi-GPU: a chain of sliced buckets laid out for slicing equals the CPU's tables and "
          "assignment",
          "[gpu][multi-device]") {
    const TensorProgram p = testing::slicedChainProgram();
    auto cpu = runTensorProgramCpu(p);
    REQUIRE(cpu.ok());
    std::vector<uint32_t> expected(p.domainSizes.size(), 0);
    recoverAssignment(p, *cpu, expected);
    for (const std::vector<int> &ordinals : deviceLists()) {
        if (ordinals.size() < 2)
            continue;
        MultiDeviceOptions o;
        o.sliceThresholdEntries = 4096;
        GpuExecStats st;
        auto gpu = runTensorProgramCuda(p, on(ordinals, o), &st);
        INFO("devices " << text(ordinals) << ": " << (gpu ? st.transport : gpu.error().str()));
        REQUIRE(gpu.ok());
        CHECK(*gpu == *cpu); // in the program's layouts again
        CHECK(st.relaidOutputs == 1);
        std::vector<uint32_t> assignment(p.domainSizes.size(), 0);
        GpuExecStats solved;
        auto optimum = solveTensorProgramCuda(p, assignment, on(ordinals, o), &solved);
        REQUIRE(optimum.ok());
        CHECK(*optimum == programResult(p, *cpu));
        CHECK(assignment == expected);
        CHECK(solved.relaidOutputs == 1);
    }
}

TEST_CASE("multi-GPU executor: one device falls back with a note, a list beyond the machine names "
          "its GPUs, the solver's optimum equals the CPU's",
          "[gpu][multi-device]") {
    std::mt19937 rng(59);
    const TensorProgram p = testing::randomBucketProgram(rng, true, false);
    TensorExecutorOptions one;
    one.devices = "1";
    auto single = makeTensorExecutor("cuda", one);
    REQUIRE(single.ok());
    auto run = (*single)->run(p);
    REQUIRE(run.ok());
    CHECK(run->device.label().find("one device, the single-GPU path") != std::string::npos);

    TensorExecutorOptions beyond;
    beyond.devices = std::to_string(*deviceCount() + 1);
    auto refused = makeTensorExecutor("cuda", beyond);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message.find("this machine has") != std::string::npos);
    CHECK(refused.error().message.find(deviceInfo(0)->name) != std::string::npos);

    const std::string path = std::string(ZBDDC_BENCHMARKS_DIR) + "/wcsp/example.wcsp";
    REQUIRE(std::filesystem::exists(path));
    auto net = readCostNetworkFile(path);
    REQUIRE(net.ok());
    BeOptions cpuOptions;
    auto cpu = solveBucketElimination(*net, cpuOptions);
    REQUIRE(cpu.ok());
    for (const char *devices : {"0,0", "0,0,0"}) {
        BeOptions o;
        o.executor = "cuda";
        o.execution.devices = devices;
        o.execution.multiDevice.sliceThresholdEntries = 1 << 10;
        auto sol = solveBucketElimination(*net, o);
        INFO(devices << ": " << (sol ? sol->device.label() : sol.error().str()));
        REQUIRE(sol.ok());
        CHECK(sol->cost == cpu->cost);
        CHECK(sol->device.label().find(std::string("devices ") + devices) != std::string::npos);
    }
}

TEST_CASE("NCCL, where it loads: a one-rank communicator sends bytes to itself", "[gpu][nccl]") {
    if (Status s = ncclAvailable(); !s) {
        WARN("NCCL not tested: " << s.error().message);
        return;
    }
    INFO("NCCL " << ncclVersion());
    auto d = openDevice(0);
    REQUIRE(d.ok());
    const int ordinal = 0;
    auto comms = NcclComms::open(std::span<const int>(&ordinal, 1));
    REQUIRE(comms.ok());
    std::vector<double> values(1000);
    for (size_t i = 0; i < values.size(); ++i)
        values[i] = static_cast<double>(i) * 0.5;
    auto src = uploadArray(**d, values);
    auto dst = (*d)->allocate(values.size() * sizeof(double));
    REQUIRE(src.ok());
    REQUIRE(dst.ok());
    auto stream = (*d)->createStream();
    REQUIRE(stream.ok());
    const PeerTransfer t{0,       0,      src->ptr(), dst->ptr(), values.size() * sizeof(double),
                         *stream, *stream};
    REQUIRE((*comms)->transfer(std::span<const PeerTransfer>(&t, 1)).ok());
    REQUIRE((*d)->synchronize(*stream).ok());
    std::vector<double> back(values.size());
    REQUIRE((*d)->download(back.data(), dst->ptr(), back.size() * sizeof(double)).ok());
    CHECK(back == values);
    (void)(*d)->destroyStream(*stream);
}
