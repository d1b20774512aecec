// The DevicePlan is checked on the host, without a GPU: a plain executor of its arrays (what the
// generated kernels do, level by level and block by block, x operands of a preloaded block read
// from its tile, in float64) must agree with the reference evaluator, its backward gather lists
// must reproduce inputAdjoints, and its traceback the circuit's.
#include "backends/cuda/cuda_model.h"
#include "backends/cuda/device_plan.h"
#include "backends/cuda/plan_traceback.h"
#include "backends/cuda/schedule/gpu_passes.h"
#include "compiler/passes/pipeline.h"
#include "ir/interpret.h"

#include "tests/catch.hpp"
#include "tests/support/host_plan_run.h"
#include "tests/support/random_circuits.h"

#include <cmath>

using namespace zbddc;
using namespace zbddc::cuda;
using zbddc::testing::executePlan;
using zbddc::testing::HostRun;
using zbddc::testing::planFor;

namespace {

const Semiring kAll[] = {Semiring::SumProduct, Semiring::MaxProduct, Semiring::MaxSum,
                         Semiring::MinSum};

} // namespace

TEST_CASE("plans of every schedule level equal the reference evaluator, with and without slot "
          "reuse",
          "[cuda][plan]") {
    for (Semiring s : kAll)
        for (uint32_t seed = 1; seed <= 4; ++seed) {
            const Circuit c =
                testing::randomCircuit({.inputs = 6, .ops = 80, .outputs = 3, .semiring = s}, seed);
            const auto x = testing::randomInputs(c.numInputs(), seed + 100);
            const auto ref = evaluate(c, x, s);
            REQUIRE(ref.ok());
            for (int level = 0; level <= 3; ++level)
                for (bool keep : {true, false}) {
                    INFO(semiringName(s) << " seed " << seed << " O" << level << " keep " << keep);
                    const DevicePlan p = planFor(c, level, 1, keep);
                    if (keep)
                        CHECK(!p.reusesSlots);
                    const HostRun h = executePlan(p, x, s, 0, false);
                    for (size_t o = 0; o < c.numOutputs(); ++o) {
                        const double got = h.values[p.outputSlots[o]];
                        REQUIRE(!std::isnan(got));
                        CHECK(got == Approx(ref->values[c.outputs[o]]));
                    }
                }
        }
}

TEST_CASE("ZBDD-shaped circuits: preloaded tiles, merged types, forward and backward equal the "
          "reference",
          "[cuda][plan][schedule]") {
    bool sawTile = false;
    for (Semiring s : kAll)
        for (int level = 0; level <= 3; ++level)
            for (uint32_t lanes : {1u, 64u})
                for (uint32_t seed = 1; seed <= 3; ++seed) {
                    Circuit c =
                        testing::randomZddCircuit({.vars = 25, .width = 12, .roots = 2}, seed);
                    c.semiring = s;
                    const DevicePlan p = planFor(c, level, lanes, true, 64);
                    INFO("O" << level << " " << semiringName(s) << " lanes " << lanes << " types "
                             << p.typeCode.size());
                    REQUIRE(!p.reusesSlots);
                    sawTile |= p.maxTileLoads > 0;
                    CHECK(size_t{p.maxTileLoads} * lanes * 8 <= kCudaTileBytes);
                    const auto x = testing::randomInputs(c.numInputs(), seed + 40, 0.3, 0.9);
                    const auto ref = evaluate(c, x, s);
                    const HostRun h = executePlan(p, x, s, p.outputSlots[0], true);
                    for (size_t o = 0; o < c.numOutputs(); ++o)
                        CHECK(h.values[p.outputSlots[o]] == Approx(ref->values[c.outputs[o]]));
                    const auto adj = inputAdjoints(c, *ref, 0);
                    for (size_t i = 0; i < c.numInputs(); ++i) {
                        REQUIRE(!std::isnan(h.adjoints[p.inputBase + i]));
                        CHECK(h.adjoints[p.inputBase + i] == Approx(adj[i]));
                    }
                }
    CHECK(sawTile); // the tile path above was exercised
}

TEST_CASE("-O0 keeps the circuit's own ops: one level per ZBDD variable, ops grouped by type",
          "[cuda][plan]") {
    const Circuit c = testing::randomZddCircuit({.vars = 20, .width = 8}, 3);
    const DevicePlan p = planFor(c, 0, 1);
    CHECK(p.numLevels() <= 20);
    CHECK(p.numOps() == 20 * 8);
    for (uint32_t g = 0; g < p.groupType.size(); ++g)
        for (uint32_t k = p.groupOpBegin[g]; k < p.groupOpBegin[g + 1]; ++k)
            CHECK(p.opType[k] == p.groupType[g]);
    for (uint32_t b = 0; b + 1 < p.blockOpBegin.size(); ++b) // blocks inside one group
        for (uint32_t k = p.blockOpBegin[b]; k < p.blockOpBegin[b + 1]; ++k)
            CHECK(p.opType[k] == p.opType[p.blockOpBegin[b]]);
}

TEST_CASE("the plan's traceback finds the circuit's optimal term", "[cuda][plan][traceback]") {
    for (Semiring s : {Semiring::MaxProduct, Semiring::MaxSum, Semiring::MinSum})
        for (int level : {0, 3})
            for (uint32_t seed = 1; seed <= 6; ++seed) {
                Circuit c = testing::randomZddCircuit({.vars = 18, .width = 6, .roots = 2}, seed);
                c.semiring = s;
                const DevicePlan p = planFor(c, level, 1);
                const auto x = testing::randomInputs(c.numInputs(), seed + 9, 0.2, 0.95);
                const auto ref = evaluate(c, x, s);
                const HostRun h = executePlan(p, x, s, 0, false);
                for (size_t o = 0; o < c.numOutputs(); ++o) {
                    INFO(semiringName(s) << " O" << level << " seed " << seed << " output " << o);
                    auto got = tracebackPlan(p, s, false, h.values, p.outputSlots[o]);
                    REQUIRE(got.ok());
                    // Random real inputs: one optimal term, so the sets are equal.
                    CHECK(*got == traceback(c, *ref, o));
                }
                if (s == Semiring::MaxProduct) { // the same walk over natural logs
                    std::vector<double> logs(h.values.size());
                    for (size_t i = 0; i < logs.size(); ++i)
                        logs[i] = std::log(h.values[i]);
                    auto got = tracebackPlan(p, s, true, logs, p.outputSlots[0]);
                    REQUIRE(got.ok());
                    CHECK(*got == traceback(c, *ref, 0));
                }
            }
}

TEST_CASE("the inputs' backward pieces cover each wanted input's edges in order",
          "[cuda][plan]") {
    const Circuit c = testing::randomZddCircuit({.vars = 12, .width = 120}, 3);
    const DevicePlan p = planFor(c, 3, 64);
    uint32_t most = 0;
    for (uint32_t i = 0; i < p.numInputs; ++i)
        most = std::max(most, p.edgeStart[p.numOps() + i + 1] - p.edgeStart[p.numOps() + i]);
    REQUIRE(most > kEdgesPerPiece); // some input is cut
    for (const std::vector<uint32_t> &wanted :
         {std::vector<uint32_t>{}, std::vector<uint32_t>{0, 2, p.numInputs - 1}}) {
        const InputPieces q = wanted.empty() ? allInputPieces(p) : inputPieces(p, wanted);
        const size_t n = wanted.empty() ? p.numInputs : wanted.size();
        REQUIRE(q.inputs.size() == n);
        REQUIRE(q.pieceBegin.size() == n + 1);
        for (size_t j = 0; j < n; ++j) {
            const uint32_t item = p.numOps() + q.inputs[j];
            uint32_t next = p.edgeStart[item]; // the pieces tile the input's edges, in order
            for (uint32_t k = q.pieceBegin[j]; k < q.pieceBegin[j + 1]; ++k) {
                CHECK(q.edges[2 * k] == next);
                CHECK(q.edges[2 * k + 1] > next);
                CHECK(q.edges[2 * k + 1] - next <= kEdgesPerPiece);
                next = q.edges[2 * k + 1];
            }
            CHECK(next == p.edgeStart[item + 1]);
        }
        CHECK(q.pieceBegin.back() == q.numPieces());
    }
}

TEST_CASE("the ops' backward pieces cut exactly the ops of many edges, level by level",
          "[cuda][plan]") {
    const Circuit c = testing::randomZddCircuit({.vars = 12, .width = 120}, 3);
    const DevicePlan p = planFor(c, 3, 64);
    const OpPieces q = opPieces(p);
    REQUIRE(q.levelPieceBegin.size() == p.numLevels() + 1);
    REQUIRE(q.levelSplitBegin.size() == p.numLevels() + 1);
    REQUIRE(q.splitPieceBegin.size() == q.splitOp.size() + 1);
    size_t split = 0;
    for (uint32_t L = 0; L < p.numLevels(); ++L) {
        const uint32_t k0 = p.groupOpBegin[p.levelGroupBegin[L]];
        const uint32_t k1 = p.groupOpBegin[p.levelGroupBegin[L + 1]];
        CHECK(q.levelSplitBegin[L] == split);
        for (uint32_t k = k0; k < k1; ++k) {
            const uint32_t e0 = p.edgeStart[k], e1 = p.edgeStart[k + 1];
            if (e1 - e0 <= kOpEdgesPerPiece)
                continue;
            REQUIRE(split < q.splitOp.size());
            CHECK(q.splitOp[split] == k);
            uint32_t next = e0; // the pieces tile the op's edges, in order, within its level's
            for (uint32_t r = q.splitPieceBegin[split]; r < q.splitPieceBegin[split + 1]; ++r) {
                CHECK(r >= q.levelPieceBegin[L]);
                CHECK(r < q.levelPieceBegin[L + 1]);
                CHECK(q.edges[2 * r] == next);
                CHECK(q.edges[2 * r + 1] - next <= kOpEdgesPerPiece);
                next = q.edges[2 * r + 1];
            }
            CHECK(next == e1);
            ++split;
        }
    }
    CHECK(split == q.splitOp.size());
    CHECK(split > 0); // a merged op of this circuit is read by more than kOpEdgesPerPiece edges
    CHECK(q.levelPieceBegin.back() == q.numPieces());
}

TEST_CASE("segments follow the schedule's phases; short one-block runs join the grid",
          "[cuda][plan]") {
    // A chain whose levels narrow and widen: 3 narrow, 2 wide, 1 narrow, 1 wide, 5 narrow.
    DevicePlan p;
    const std::vector<uint32_t> widths{1, 2, 3, 500, 900, 4, 700, 1, 2, 3, 4, 5};
    for (uint32_t w : widths) {
        for (uint32_t k = 0; k < w; ++k)
            p.opType.push_back(0);
        p.groupOpBegin.push_back(static_cast<uint32_t>(p.opType.size()));
        p.groupType.push_back(0);
        p.levelGroupBegin.push_back(static_cast<uint32_t>(p.groupType.size()));
        const bool wide = w >= 100;
        p.levelPhase.push_back(static_cast<uint32_t>(wide ? Phase::Grid : Phase::SingleBlock));
        for (uint32_t b = 0; b < (wide ? w / 100 : 1); ++b)
            p.blockOpBegin.push_back(p.groupOpBegin.back() - w +
                                     (b + 1) * w / (wide ? w / 100 : 1));
        p.levelBlockBegin.push_back(static_cast<uint32_t>(p.blockOpBegin.size() - 1));
    }
    p.numInputs = 40;
    p.edgeStart.assign(p.numOps() + 1, 0); // no op is read; each input by 100 ops: 4 pieces
    for (uint32_t i = 0; i < p.numInputs; ++i)
        p.edgeStart.push_back(p.edgeStart.back() + 100);
    const auto fwd = forwardSegments(p, 8);
    REQUIRE(fwd.size() == 5);
    CHECK((!fwd[0].grid && fwd[0].first == 0 && fwd[0].last == 3));
    CHECK((fwd[1].grid && fwd[1].first == 3 && fwd[1].last == 5 && fwd[1].blocks == 8)); // 9 > 8
    CHECK((!fwd[2].grid && fwd[2].first == 5 && fwd[2].last == 6));
    CHECK((fwd[3].grid && fwd[3].blocks == 7));
    CHECK((!fwd[4].grid && fwd[4].first == 7 && fwd[4].last == 12));
    // Backward mirrors it (last level first); the inputs' two steps go by their own work: 160
    // pieces × 64 lanes, then 40 inputs × 64, both more than 2048, so the grid, after level 0's
    // one block, as many blocks as the pieces want.
    const auto bwd = backwardSegments(p, 64, 1024, 2048, 264);
    REQUIRE(bwd.size() == 6);
    CHECK((!bwd[0].grid && bwd[0].first == 0 && bwd[0].last == 5));
    CHECK((bwd[1].grid && bwd[1].first == 5 && bwd[1].last == 6 && bwd[1].blocks == 44));
    CHECK((!bwd[4].grid && bwd[4].first == 9 && bwd[4].last == 12));
    CHECK((bwd[5].grid && bwd[5].first == 12 && bwd[5].last == 14 && bwd[5].blocks == 10));
    const auto narrow = backwardSegments(p, 32, 1024, 2048, 264); // 40 × 32 fits one block
    REQUIRE(narrow.size() == 7);
    CHECK((narrow[5].grid && narrow[5].first == 12 && narrow[5].last == 13));
    CHECK((!narrow[6].grid && narrow[6].first == 13 && narrow[6].last == 14));

    // The phase split decides it from ops × lanes: a run of one-block levels shorter than four
    // between grid levels joins the grid.
    Circuit c = testing::randomZddCircuit({.vars = 30, .width = 40}, 5);
    for (uint32_t lanes : {1u, 512u}) {
        const DevicePlan q = planFor(c, 0, lanes, true, 2048);
        for (uint32_t L = 0; L < q.numLevels(); ++L) {
            const uint64_t work = uint64_t{q.levelWidth(L)} * lanes;
            if (q.levelPhase[L] == static_cast<uint32_t>(Phase::SingleBlock))
                CHECK(work <= 2048);
        }
    }
}
