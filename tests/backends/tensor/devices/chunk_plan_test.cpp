// The out-of-core chunk planner and its slicing logic (Bistaffa et al. 2017 §V-B2), without a GPU:
// plans stay within their budgets and tile every output; runChunkPlanOnHost — which gives each step
// only the input rows inputRange names and bounds-checks every read — and the out-of-core run's
// steps (chunk_steps.h) on the emulated device — which holds only the rows the steps give it,
// poison elsewhere, and never more bytes than the budget — reproduce the reference interpreter
// table by table on random programs under budgets down to the smallest that can work, in the
// bucket programs' layout, in scrambled layouts, and after relayoutForChunks.
#include "backends/tensor/devices/chunk_layout.h"
#include "backends/tensor/devices/chunk_plan.h"
#include "backends/tensor/devices/chunk_steps.h"
#include "compiler/elimination/bucket_program.h"
#include "compiler/elimination/elimination_order.h"
#include "ir/tensor_interpret.h"
#include "tests/backends/tensor/devices/chunk_host_run.h"

#include "tests/backends/tensor/devices/emulated_tensor_device.h"
#include "tests/catch.hpp"
#include "tests/support/host_out_of_core.h"
#include "tests/support/random_programs.h"

using namespace zbddc;
using namespace zbddc::testing;

namespace {
uint64_t totalBytes(const TensorProgram &p) {
    uint64_t total = 0;
    for (const Table &t : p.tables)
        total += 8 * t.entries();
    return total;
}

struct Coverage {
    int outOfCore = 0, multiChunk = 0, slicedInputs = 0, elimSplits = 0;
};

// Plans `p` under `budget` and checks the plan's invariants and its host run against `oracle`.
void checkPlanRun(const TensorProgram &p, const std::vector<std::vector<double>> &oracle,
                  const ChunkPlanOptions &o, Coverage &cov) {
    auto plan = planChunks(p, o);
    INFO("budget " << o.budgetBytes << ": " << (plan ? "" : plan.error().str()));
    REQUIRE(plan.ok());
    if (!plan->outOfCore)
        return;
    ++cov.outOfCore;
    REQUIRE(plan->ops.size() == p.ops.size());
    for (uint32_t op = 0; op < p.ops.size(); ++op) {
        const OpChunkPlan &c = plan->ops[op];
        const TensorOp &tensorOp = p.ops[op];
        CHECK(c.chunkRows * c.chunks == p.tables[tensorOp.output].entries());
        uint64_t space = 1;
        if (tensorOp.kind == TensorOpKind::EliminateBucket ||
            tensorOp.kind == TensorOpKind::Marginalize)
            for (uint32_t v : tensorOp.vars)
                space *= p.domainSizes[v];
        CHECK(c.elimValues * c.elimSlices == space);
        CHECK(c.residentBytes + c.stepBytes <= o.budgetBytes);
        cov.multiChunk += c.chunks > 1;
        cov.elimSplits += c.elimSlices > 1;
        for (bool s : c.inputSliced)
            cov.slicedInputs += s;
    }
    auto run = runChunkPlanOnHost(p, *plan);
    REQUIRE(run.ok());
    CHECK(*run == oracle);

    // The same plan as the GPU runs it: steps on one device, within the budget at every step.
    const std::vector<DeviceStep> steps = chunkSteps(p, *plan);
    std::vector<uint64_t> held(p.tables.size(), 0);
    uint64_t bytes = 0, peak = 0;
    for (const DeviceStep &s : steps) {
        if (s.kind == StepKind::Reserve || s.kind == StepKind::Release) {
            bytes -= held[s.table];
            held[s.table] = s.kind == StepKind::Reserve ? 8 * s.rows.rows : 0;
            bytes += held[s.table];
            peak = std::max(peak, bytes);
        }
    }
    CHECK(bytes == 0);
    CHECK(peak <= o.budgetBytes);
    EmulatedTensorDevice device(p);
    TensorDevice *const devices[] = {&device};
    StepTargets targets;
    targets.devices = devices;
    StepTimes times{};
    auto stepped = runDeviceSteps(p, steps, targets, times);
    INFO((stepped ? "" : stepped.error().str()));
    REQUIRE(stepped.ok());
    CHECK(*stepped == oracle);
}

void checkAtRandomBudgets(const TensorProgram &p, std::mt19937 &rng, Coverage &cov) {
    auto oracle = interpretTensorProgram(p);
    REQUIRE(oracle.ok());
    ChunkPlanOptions o;
    o.wholeInputMaxEntries = rng() % 3 == 0 ? 16 : 0; // mostly slice even the smallest inputs
    const uint64_t least = smallestBudget(p, o);
    for (const uint64_t budget : {least, least + rng() % (totalBytes(p) + 1), least * 4}) {
        o.budgetBytes = budget;
        checkPlanRun(p, *oracle, o, cov);
    }
    o.budgetBytes = least - 1;
    auto refused = planChunks(p, o);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message.find("beyond the device budget") != std::string::npos);
}
} // namespace

TEST_CASE("chunk plans of bucket programs run on the host equal the interpreter",
          "[wcsp][chunks]") {
    std::mt19937 rng(5);
    Coverage cov;
    for (int trial = 0; trial < 120; ++trial) {
        INFO("trial " << trial);
        const bool evidence = trial % 4 == 1;
        const TensorProgram p = randomBucketProgram(rng, trial % 3 != 0, evidence);
        // Without evidence the bucket layout is already the chunk-friendly one (with evidence,
        // a slice op's input wants its evidence variables first).
        if (!evidence)
            CHECK_FALSE(needsRelayout(p));
        checkAtRandomBudgets(p, rng, cov);
    }
    // The trials must exercise chunked outputs and sliced inputs, not only "it fits".
    CHECK(cov.outOfCore > 200);
    CHECK(cov.multiChunk > 200);
    CHECK(cov.slicedInputs > 200);
}

TEST_CASE("in the bucket layout every sliced input range is exactly its slice", "[wcsp][chunks]") {
    std::mt19937 rng(11);
    int sliced = 0;
    for (int trial = 0; trial < 60; ++trial) {
        const TensorProgram p = randomBucketProgram(rng, true, false);
        ChunkPlanOptions o;
        o.wholeInputMaxEntries = 0;
        o.budgetBytes = smallestBudget(p, o);
        auto plan = planChunks(p, o);
        REQUIRE(plan.ok());
        if (!plan->outOfCore)
            continue;
        for (uint32_t op = 0; op < p.ops.size(); ++op) {
            const OpChunkPlan &c = plan->ops[op];
            const Table &out = p.tables[p.ops[op].output];
            for (size_t j = 0; j < p.ops[op].inputs.size(); ++j) {
                if (!c.inputSliced[j])
                    continue;
                ++sliced;
                // Exact: the product of the domains of the input's variables the step leaves free.
                const Table &in = p.tables[p.ops[op].inputs[j]];
                uint64_t exact = 1;
                for (size_t i = 0; i < in.scope.size(); ++i) {
                    const auto at = std::find(out.scope.begin(), out.scope.end(), in.scope[i]);
                    const bool fixedOut =
                        at != out.scope.end() && at - out.scope.begin() < c.fixedVars;
                    const auto e =
                        std::find(p.ops[op].vars.begin(), p.ops[op].vars.end(), in.scope[i]);
                    const bool fixedElim =
                        e != p.ops[op].vars.end() && e - p.ops[op].vars.begin() < c.fixedElimVars;
                    if (!fixedOut && !fixedElim)
                        exact *= in.domains[i];
                }
                CHECK(c.inputRows[j] == exact);
            }
        }
    }
    CHECK(sliced > 100);
}

TEST_CASE("wide eliminations split their eliminated space and combine partial results",
          "[wcsp][chunks]") {
    std::mt19937 rng(7);
    Coverage cov;
    for (int trial = 0; trial < 150; ++trial) {
        INFO("trial " << trial);
        checkAtRandomBudgets(randomWideEliminationProgram(rng), rng, cov);
    }
    CHECK(cov.elimSplits > 50);
}

TEST_CASE("scrambled layouts run correctly with wide ranges, and exactly after relayout",
          "[wcsp][chunks]") {
    std::mt19937 rng(13);
    Coverage wide, relaid;
    for (int trial = 0; trial < 80; ++trial) {
        INFO("trial " << trial);
        const TensorProgram p =
            scrambleLayouts(trial % 2 ? randomBucketProgram(rng, trial % 3 != 0, trial % 4 == 1)
                                      : randomWideEliminationProgram(rng),
                            rng);
        checkAtRandomBudgets(p, rng, wide);
        // Relaid: the same answers once the layouts are restored, and nothing left to relayout.
        const TensorProgram r = relayoutForChunks(p);
        REQUIRE(r.verify().ok());
        CHECK_FALSE(needsRelayout(r));
        auto oracle = interpretTensorProgram(p);
        REQUIRE(oracle.ok());
        ChunkPlanOptions o;
        o.wholeInputMaxEntries = 0;
        o.budgetBytes = smallestBudget(r, o);
        auto plan = planChunks(r, o);
        REQUIRE(plan.ok());
        if (!plan->outOfCore)
            continue;
        ++relaid.outOfCore;
        auto run = runChunkPlanOnHost(r, *plan);
        REQUIRE(run.ok());
        restoreLayouts(p, r, *run);
        CHECK(*run == *oracle);
        // Relayout never needs a larger budget than the scrambled layout.
        CHECK(o.budgetBytes <= smallestBudget(p, o));
    }
    CHECK(wide.outOfCore > 100);
    CHECK(relaid.outOfCore > 40);
}

TEST_CASE("generated wide-bucket networks solve out of core with tables 8x the budget",
          "[wcsp][chunks]") {
    // band: every message has 4^7 entries; star: one message of 6*5*4*4*3*3*2*2 entries.
    hostOutOfCoreOptimum(bench::bandNetwork(12, 7, 4, 1), 8);
    const auto star = bench::starNetwork({6, 5, 4, 4, 3, 3, 2, 2}, 3, 2);
    CHECK(hostOutOfCoreOptimum(star, 8) == bench::starOptimum(star.network));
}
