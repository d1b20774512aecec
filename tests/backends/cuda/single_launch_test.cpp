// The single-launch kernels' schedule run on the host (no GPU here): the planner's choices
// (lanes per block, threads, which slots live in shared memory) and, per block and per thread,
// the index arithmetic zb_forward_single and zb_backward_single do (kernel_source.cpp), in
// float64, against the reference evaluator. Shared memory is per block and starts as NaN, so a
// value read before it was written, or from another block's lanes, shows.
#include "backends/cuda/single_launch.h"
#include "ir/interpret.h"

#include "tests/catch.hpp"
#include "tests/support/host_plan_run.h"
#include "tests/support/random_circuits.h"

#include <cmath>
#include <functional>

using namespace zbddc;
using namespace zbddc::cuda;
using zbddc::testing::evalOp;
using zbddc::testing::planFor;

namespace {

// Global rows as the model holds them: slot s, lane l at s * B + l.
struct Rows {
    uint32_t batch;
    std::vector<double> values, adjoints;
    double &value(uint32_t slot, uint32_t lane) { return values[size_t{slot} * batch + lane]; }
    double &adjoint(uint32_t slot, uint32_t lane) { return adjoints[size_t{slot} * batch + lane]; }
};

// The kernels' walk, block by block and thread by thread. `xs`: batch vectors of inputs.
Rows runSingleLaunch(const DevicePlan &p, const SingleLaunchPlan &plan, Semiring s,
                     const std::vector<std::vector<double>> &xs, uint32_t outSlot) {
    const SemiringOps r{s};
    const uint32_t B = static_cast<uint32_t>(xs.size());
    const SingleLaunchParams &q = plan.params;
    const uint32_t mask = (1u << q.laneShift) - 1;
    Rows g{B, std::vector<double>(size_t{p.numSlots} * B, std::nan("")),
           std::vector<double>(size_t{p.numSlots} * B, std::nan(""))};
    for (uint32_t l = 0; l < B; ++l) {
        for (uint32_t k = 0; k < p.constantValues.size(); ++k)
            g.value(p.constantBase + k, l) = p.constantValues[k];
        for (uint32_t i = 0; i < p.numInputs; ++i)
            g.value(p.inputBase + i, l) = xs[l][i];
    }
    auto levelOps = [&](uint32_t L) {
        return std::pair{p.groupOpBegin[p.levelGroupBegin[L]],
                         p.groupOpBegin[p.levelGroupBegin[L + 1]]};
    };
    // Every (thread, item) of one step as the kernel's strided loop hands them out.
    auto forItems = [&](uint32_t work, auto body) {
        for (uint32_t t = 0; t < plan.threads; ++t)
            for (uint32_t w = t; w < work; w += plan.threads)
                body(w);
    };
    // Level L's items for the block from lane0: each op's result `compute(k, lane, local)`, as
    // (slot, lane, local, value) writes that land after the level's reads (its barrier).
    using Write = std::tuple<uint32_t, uint32_t, uint32_t, double>;
    auto levelWrites = [&](uint32_t L, uint32_t lane0, auto compute) {
        const auto [i0, i1] = levelOps(L);
        std::vector<Write> writes;
        forItems((i1 - i0) << q.laneShift, [&](uint32_t w) {
            const uint32_t k = i0 + (w >> q.laneShift), local = w & mask, lane = lane0 + local;
            if (lane < B)
                writes.emplace_back(p.opOut[k], lane, local, compute(k, lane, local));
        });
        return writes;
    };
    // Where the block keeps slot `slot` of its lane `local`, or null (the global rows).
    auto inShared = [&](std::vector<double> &shared, uint32_t slot, uint32_t local) -> double * {
        const uint32_t at = slot - q.sharedFirst;
        return at < q.sharedSlots ? &shared.at((size_t{at} << q.laneShift) + local) : nullptr;
    };
    for (uint32_t b = 0; b < plan.blocks; ++b) { // forward
        const uint32_t lane0 = b << q.laneShift;
        std::vector<double> shared(size_t{q.sharedSlots} << q.laneShift, std::nan(""));
        auto load = [&](uint32_t slot, uint32_t lane, uint32_t local) {
            const double *at = inShared(shared, slot, local);
            return at ? *at : g.value(slot, lane);
        };
        forItems((q.stagedEnd - q.sharedFirst) << q.laneShift, [&](uint32_t i) {
            if (const uint32_t lane = lane0 + (i & mask); lane < B)
                shared.at(i) = g.value(q.sharedFirst + (i >> q.laneShift), lane);
        });
        for (uint32_t L = 0; L < p.numLevels(); ++L)
            for (auto [slot, lane, local, v] :
                 levelWrites(L, lane0, [&](uint32_t k, uint32_t lane, uint32_t local) {
                     const uint32_t *o = &p.slotOperands[p.opOperandBegin[k]];
                     return evalOp(
                         p, k, [&](uint32_t, int j) { return load(o[j], lane, local); }, r);
                 })) {
                if (double *at = inShared(shared, slot, local))
                    *at = v;
                g.value(slot, lane) = v; // written through
            }
    }
    const OpPieces pieces = opPieces(p);
    for (uint32_t b = 0; b < plan.blocks; ++b) { // backward
        const uint32_t lane0 = b << q.laneShift;
        std::vector<double> shared(size_t{q.sharedSlots} << q.laneShift, std::nan(""));
        auto adjointOf = [&](uint32_t slot, uint32_t lane, uint32_t local) {
            const double *at = inShared(shared, slot, local);
            return at ? *at : g.adjoint(slot, lane);
        };
        auto gather = [&](uint32_t e0, uint32_t e1, uint32_t lane, uint32_t local, double acc) {
            for (uint32_t e = e0; e < e1; ++e) {
                const uint32_t k = p.edgeOp[e];
                const uint32_t *o = &p.slotOperands[p.opOperandBegin[k]];
                const double coef = evalOp(
                    p, k, [&](uint32_t, int j) { return g.value(o[j], lane); }, r,
                    int(p.edgePos[e]));
                acc = r.plus(acc, r.times(adjointOf(p.opOut[k], lane, local), coef));
            }
            return acc;
        };
        auto start = [&](uint32_t slot) { return slot == outSlot ? r.one() : r.zero(); };
        // An op's adjoint where the block keeps its slot, else the global rows.
        auto store = [&](uint32_t slot, uint32_t lane, uint32_t local, double v) {
            double *at = inShared(shared, slot, local);
            (at ? *at : g.adjoint(slot, lane)) = v;
        };
        std::vector<double> partials(size_t{pieces.numPieces()} * B, std::nan(""));
        // The levels last first: each level's ops, then its pieces, then its split ops' sums, a
        // barrier after each.
        for (uint32_t L = p.numLevels(); L-- > 0;) {
            const auto [i0, i1] = levelOps(L);
            const uint32_t q0 = pieces.levelPieceBegin[L], q1 = pieces.levelPieceBegin[L + 1];
            std::vector<std::function<void()>> writes; // land after the level's reads
            forItems((i1 - i0 + q1 - q0) << q.laneShift, [&](uint32_t w) {
                const uint32_t item = w >> q.laneShift, local = w & mask, lane = lane0 + local;
                if (lane >= B)
                    return;
                const bool piece = item >= i1 - i0;
                const uint32_t k = i0 + item, pc = q0 + item - (i1 - i0);
                const uint32_t e0 = piece ? pieces.edges[2 * pc] : p.edgeStart[k];
                const uint32_t e1 = piece ? pieces.edges[2 * pc + 1] : p.edgeStart[k + 1];
                if (!piece && e1 - e0 > kOpEdgesPerPiece)
                    return; // gathered by its pieces
                const double v = gather(e0, e1, lane, local, piece ? r.zero() : start(p.opOut[k]));
                writes.push_back([&, piece, k, pc, lane, local, v] {
                    if (piece)
                        partials.at(size_t{pc} * B + lane) = v;
                    else
                        store(p.opOut[k], lane, local, v);
                });
            });
            for (auto &write : writes)
                write();
            const uint32_t j0 = pieces.levelSplitBegin[L], j1 = pieces.levelSplitBegin[L + 1];
            forItems((j1 - j0) << q.laneShift, [&](uint32_t w) {
                const uint32_t j = j0 + (w >> q.laneShift), local = w & mask, lane = lane0 + local;
                if (lane >= B)
                    return;
                const uint32_t slot = p.opOut[pieces.splitOp[j]];
                double acc = start(slot);
                for (uint32_t pc = pieces.splitPieceBegin[j]; pc < pieces.splitPieceBegin[j + 1];
                     ++pc)
                    acc = r.plus(acc, partials.at(size_t{pc} * B + lane));
                store(slot, lane, local, acc);
            });
        }
        // Then every input's adjoint from all its edges, into the global rows.
        forItems(p.numInputs << q.laneShift, [&](uint32_t w) {
            const uint32_t j = w >> q.laneShift, local = w & mask, lane = lane0 + local;
            if (lane >= B)
                return;
            const uint32_t slot = p.inputBase + j, item = p.numOps() + j;
            g.adjoint(slot, lane) =
                gather(p.edgeStart[item], p.edgeStart[item + 1], lane, local, start(slot));
        });
    }
    return g;
}

void checkAgainstReference(const Circuit &c, const DevicePlan &p, const SingleLaunchPlan &plan,
                           Semiring s, uint32_t batch, uint32_t seed) {
    std::vector<std::vector<double>> xs;
    for (uint32_t l = 0; l < batch; ++l)
        xs.push_back(testing::randomInputs(c.numInputs(), seed * 1000 + l, 0.3, 0.9));
    const Rows g = runSingleLaunch(p, plan, s, xs, p.outputSlots[0]);
    for (uint32_t l = 0; l < batch; ++l) {
        INFO("lane " << l);
        const auto ref = evaluate(c, xs[l], s);
        REQUIRE(ref.ok());
        for (size_t o = 0; o < c.numOutputs(); ++o)
            CHECK(g.values[size_t{p.outputSlots[o]} * batch + l] ==
                  Approx(ref->values[c.outputs[o]]).epsilon(1e-12));
        const auto adj = inputAdjoints(c, *ref, 0);
        for (size_t i = 0; i < c.numInputs(); ++i) {
            const double got = g.adjoints[size_t{p.inputBase + i} * batch + l];
            REQUIRE(!std::isnan(got));
            CHECK(got == Approx(adj[i]).epsilon(1e-12));
        }
    }
}

const Semiring kAll[] = {Semiring::SumProduct, Semiring::MaxProduct, Semiring::MaxSum,
                         Semiring::MinSum};

} // namespace

TEST_CASE("the single-launch planner: lanes cover the GPU, slots fit shared memory",
          "[cuda][single-launch]") {
    const Circuit c = testing::randomZddCircuit({.vars = 25, .width = 12, .roots = 2}, 1);
    const DevicePlan p = planFor(c, 3, 64, true, 2048, false);
    SingleLaunchLimits l;
    l.multiprocessors = 132;
    for (uint32_t batch : {1u, 7u, 128u, 1024u, 5000u}) {
        l.batch = batch;
        auto plan = planSingleLaunch(p, l);
        REQUIRE(plan);
        INFO("batch " << batch << " lanes " << plan->lanes());
        CHECK(plan->lanes() <= std::max(1u, batch / 132));
        CHECK(plan->lanes() <= 32);
        CHECK(size_t{plan->blocks} * plan->lanes() >= batch);
        CHECK(size_t{plan->blocks - 1} * plan->lanes() < batch);
        CHECK(plan->threads % 32 == 0);
        CHECK(plan->threads <= l.maxThreads);
        CHECK(plan->sharedBytes <= l.sharedBytes);
        CHECK(plan->sharedBytes == plan->params.sharedSlots * plan->lanes() * 8);
        // This circuit is small: every slot of the block's lanes is in shared memory.
        CHECK(plan->params.sharedFirst == 0);
        CHECK(plan->params.sharedSlots == p.numSlots);
        CHECK(plan->params.stagedEnd == p.firstComputedSlot);
    }
    l.batch = 1024;
    // Shared memory for the computed slots of one lane only: one lane per block, inputs global.
    l.sharedBytes = (p.numSlots - p.firstComputedSlot) * 8;
    auto one = planSingleLaunch(p, l);
    REQUIRE(one);
    CHECK(one->lanes() == 1);
    CHECK(one->params.sharedFirst == p.firstComputedSlot);
    CHECK(one->params.sharedSlots == p.numSlots - p.firstComputedSlot);
    // Not even that: the level kernels, unless forced (then part of the slots in shared memory).
    l.sharedBytes -= 8;
    CHECK(!planSingleLaunch(p, l));
    auto forced = planSingleLaunch(p, l, true);
    REQUIRE(forced);
    CHECK(forced->params.sharedSlots == p.numSlots - p.firstComputedSlot - 1);
    // Too many ops for one block per lane slice.
    l.sharedBytes = 48 * 1024;
    l.maxOps = p.numOps() - 1;
    CHECK(!planSingleLaunch(p, l));
}

TEST_CASE("the single-launch kernels' walk equals the reference, forward and backward",
          "[cuda][single-launch]") {
    // Batches that divide into the lanes and that leave the last block part empty; shared memory
    // for everything, for the computed slots only, and for part of them (forced).
    struct Setup {
        uint32_t batch, multiprocessors, sharedBytes;
        bool force;
    };
    const Setup setups[] = {{1, 132, 48 * 1024, false},
                            {7, 2, 48 * 1024, false},
                            {40, 4, 48 * 1024, false},
                            {12, 3, 900, true},
                            {9, 1, 256, true}};
    for (Semiring s : kAll)
        for (int level : {0, 3})
            for (uint32_t seed = 1; seed <= 2; ++seed) {
                Circuit c = testing::randomZddCircuit({.vars = 14, .width = 6, .roots = 2}, seed);
                c.semiring = s;
                const DevicePlan p = planFor(c, level, 8, true, 2048, false);
                for (const Setup &u : setups) {
                    SingleLaunchLimits l;
                    l.batch = u.batch;
                    l.multiprocessors = u.multiprocessors;
                    l.sharedBytes = u.sharedBytes;
                    l.maxThreads = 64; // strided loops: a thread takes several items
                    auto plan = planSingleLaunch(p, l, u.force);
                    REQUIRE(plan);
                    INFO(semiringName(s)
                         << " O" << level << " seed " << seed << " batch " << u.batch << " lanes "
                         << plan->lanes() << " shared " << plan->params.sharedFirst << "+"
                         << plan->params.sharedSlots);
                    checkAgainstReference(c, p, *plan, s, u.batch, seed);
                }
            }
    // A general DAG (every op kind and leaf) too.
    for (Semiring s : kAll) {
        const Circuit c =
            testing::randomCircuit({.inputs = 6, .ops = 80, .outputs = 3, .semiring = s}, 5);
        const DevicePlan p = planFor(c, 3, 4, true, 2048, false);
        SingleLaunchLimits l;
        l.batch = 10;
        l.multiprocessors = 2;
        auto plan = planSingleLaunch(p, l);
        REQUIRE(plan);
        checkAgainstReference(c, p, *plan, s, 10, 5);
    }
}
