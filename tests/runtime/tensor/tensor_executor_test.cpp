// The tensor executor table: every name resolves (or, for the GPU's, says why it cannot run here),
// an unknown one is refused with the names it knows, and every executor that runs answers the
// reference interpreter's optimum — complete and incomplete tables — on random WCSPs, with an
// assignment whose cost, recomputed from the network, is that optimum.
#include "compiler/elimination/bucket_program.h"
#include "ir/tensor_interpret.h"
#include "runtime/tensor/tensor_executor.h"

#include "tests/catch.hpp"
#include "tests/support/min_fill_order.h"
#include "tests/support/random_networks.h"

#include <set>

using namespace zbddc;
using zbddc::testing::minFillOrder;
using zbddc::testing::randomNetwork;

namespace {

using Kind = DeviceReport::Kind;

std::vector<std::string> executorNames() {
    std::vector<std::string> names;
    for (const TensorExecutorEntry &e : tensorExecutors())
        names.emplace_back(e.name);
    names.push_back("auto");
    return names;
}

// Only the GPU's executor may fail, and only where no GPU is usable; the message says why.
void checkMayFailHere(const std::string &name, const Diagnostic &why) {
    INFO(name << ": " << why.str());
    CHECK(name == "cuda");
    CHECK_FALSE(gpuUsable().ok());
    CHECK_FALSE(why.message.empty());
}

Kind expectedKind(const std::string &name, bool incomplete) {
    const bool gpu = gpuUsable().ok();
    if (name == "reference")
        return Kind::Reference;
    if (incomplete) // the GPU executors run incomplete tables on the CPU executor
        return Kind::Cpu;
    if (name == "cuda" || (name == "auto" && gpu))
        return Kind::Cuda;
    if (name == "split" && gpu)
        return Kind::Split;
    return Kind::Cpu;
}

TensorProgram bucketProgram(const CostNetwork &net, bool fuse,
                            const std::vector<uint32_t> &evidence) {
    const auto order = minFillOrder(net);
    auto p = buildBucketProgram(net, order, {fuse, evidence});
    REQUIRE(p.ok());
    return std::move(*p);
}

// What the VALUE phase starts from: the evidence, every other variable 0.
std::vector<uint32_t> startAssignment(const std::vector<uint32_t> &evidence, size_t n) {
    std::vector<uint32_t> a(n, 0);
    for (size_t v = 0; v < evidence.size(); ++v)
        if (evidence[v] != UINT32_MAX)
            a[v] = evidence[v];
    return a;
}

} // namespace

TEST_CASE("tensor executors: each name is listed once and every name resolves", "[executor]") {
    std::set<std::string> listed;
    for (const TensorExecutorEntry &e : tensorExecutors()) {
        CHECK(listed.insert(std::string(e.name)).second);
        CHECK(e.make != nullptr);
    }
    CHECK(listed == std::set<std::string>{"reference", "cpu", "cuda", "split"});
    for (const std::string &name : executorNames()) {
        auto made = makeTensorExecutor(name);
        if (!made)
            checkMayFailHere(name, made.error());
    }
}

TEST_CASE("tensor executors: an unknown name is refused with the known ones", "[executor]") {
    auto made = makeTensorExecutor("tpu");
    REQUIRE_FALSE(made.ok());
    CHECK(made.error().message ==
          "unknown tensor executor 'tpu' (known: reference, cpu, cuda, split, auto)");
}

TEST_CASE("tensor executors: every executor answers the reference's optimum", "[executor]") {
    std::mt19937 rng(41);
    for (int trial = 0; trial < 12; ++trial) {
        const CostNetwork net =
            randomNetwork(rng, 3 + rng() % 7, 2 + rng() % 9, 4, 3, 40, /*hard=*/true);
        std::vector<uint32_t> evidence;
        if (trial % 3 == 2) {
            evidence.assign(net.numVariables(), UINT32_MAX);
            evidence[0] = rng() % net.domainSizes[0];
        }
        const TensorProgram complete = bucketProgram(net, trial % 2 == 0, evidence);
        TensorProgram incomplete = complete;
        REQUIRE(markIncomplete(incomplete, net.upperBound).ok());
        auto reference = makeTensorExecutor("reference");
        REQUIRE(reference.ok());
        auto refComplete = (*reference)->run(complete);
        auto refIncomplete = (*reference)->runIncomplete(incomplete);
        REQUIRE(refComplete.ok());
        REQUIRE(refIncomplete.ok());
        const Cost optimum = programResult(complete, refComplete->tables);
        const Cost cappedOptimum = programResultOf(incomplete, refIncomplete->tables);

        for (const std::string &name : executorNames()) {
            INFO("trial " << trial << ", executor " << name << "\n" << complete.dump());
            TensorExecutorOptions options;
            options.threads = 2;
            options.splitThresholdEntries = 16; // where split runs, both sides get ops
            auto executor = makeTensorExecutor(name, options);
            if (!executor) {
                checkMayFailHere(name, executor.error());
                continue;
            }
            auto sparse = (*executor)->runIncomplete(incomplete);
            REQUIRE(sparse.ok()); // every executor, GPU or none: the CPU runs it
            CHECK(sparse->device.kind == expectedKind(name, true));
            CHECK(sparse->device.notes == "incomplete tables");
            CHECK(programResultOf(incomplete, sparse->tables) == cappedOptimum);
            std::vector<uint32_t> b = startAssignment(evidence, net.numVariables());
            recoverAssignmentOf(incomplete, sparse->tables, b);
            if (cappedOptimum < net.upperBound)
                CHECK(assignmentCost(net, b) == cappedOptimum);

            auto run = (*executor)->run(complete);
            if (!run) {
                checkMayFailHere(name, run.error());
                continue;
            }
            CHECK(run->device.kind == expectedKind(name, false));
            CHECK(programResult(complete, run->tables) == optimum);
            std::vector<uint32_t> a = startAssignment(evidence, net.numVariables());
            recoverAssignment(complete, run->tables, a);
            if (optimum < net.upperBound)
                CHECK(assignmentCost(net, a) == optimum);
        }
    }
}

TEST_CASE("device reports print as the CLI always has", "[executor]") {
    CHECK(DeviceReport{}.label() == "cpu");
    CHECK(DeviceReport{Kind::Reference, "", "incomplete tables"}.label() ==
          "reference (incomplete tables)");
    CHECK(DeviceReport{Kind::Cpu, "", "problem.so"}.label() == "cpu (problem.so)");
    CHECK(DeviceReport{Kind::Cuda, "NVIDIA H100 80GB HBM3 (sm_90)", "incomplete tables"}.label() ==
          "cuda: NVIDIA H100 80GB HBM3 (sm_90) (incomplete tables)");
    CHECK(DeviceReport{Kind::Split, "",
                       "threshold 64 entries: all 3 ops on the host (none reaches it)"}
              .label() == "split (threshold 64 entries: all 3 ops on the host (none reaches it))");
}
