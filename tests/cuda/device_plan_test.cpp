// The DevicePlan is checked on the host, without a GPU: a plain executor of its arrays (what the
// generated kernels do, level by level, in float64) must agree with the reference evaluator, and
// its backward gather lists must reproduce inputAdjoints.
#include "backends/cuda/cuda_model.h"
#include "backends/cuda/device_plan.h"
#include "ir/interpret.h"
#include "random_circuits.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace zbddc;
using namespace zbddc::cuda;

namespace {

struct HostRun {
    std::vector<double> values, adjoints;
};

// Executes the plan as the kernels would: levels in order, groups by kind; then backward steps.
HostRun executePlan(const DevicePlan &p, const std::vector<double> &x, Semiring s, uint32_t outSlot,
                    bool backward) {
    const SemiringOps r{s};
    HostRun h;
    h.values.assign(p.numSlots, std::nan(""));
    std::copy(x.begin(), x.end(), h.values.begin());
    std::copy(p.constantValues.begin(), p.constantValues.end(), h.values.begin() + p.numInputs);
    for (uint32_t L = 0; L < p.numLevels; ++L)
        for (int g = 0; g < kGroupKinds; ++g)
            for (uint32_t k = p.groupStart[L * 3 + g]; k < p.groupStart[L * 3 + g + 1]; ++k) {
                const double a = h.values[p.opA[k]], b = h.values[p.opB[k]];
                h.values[p.opDst[k]] = g == 0   ? r.plus(a, b)
                                       : g == 1 ? r.times(a, b)
                                                : r.plus(r.times(a, b), h.values[p.opC[k]]);
            }
    if (!backward)
        return h;
    h.adjoints.assign(p.numSlots, std::nan(""));
    auto gather = [&](uint32_t item, uint32_t slot) {
        double acc = slot == outSlot ? r.one() : r.zero();
        for (uint32_t e = p.edgeStart[item]; e < p.edgeStart[item + 1]; ++e) {
            double g = h.adjoints[p.edgeParent[e]];
            if (p.edgeMul[e] != DevicePlan::kNoMul)
                g = r.times(g, h.values[p.edgeMul[e]]);
            acc = r.plus(acc, g);
        }
        h.adjoints[slot] = acc;
    };
    for (uint32_t L = p.numLevels; L-- > 0;)
        for (uint32_t k = p.groupStart[L * 3]; k < p.groupStart[L * 3 + 3]; ++k)
            gather(k, p.opDst[k]);
    for (uint32_t i = 0; i < p.numInputs; ++i)
        gather(p.numOps() + i, i);
    return h;
}

} // namespace

TEST_CASE("plan executed level by level equals the reference evaluator, with and without slot reuse",
          "[cuda][plan]") {
    for (Semiring s : {Semiring::SumProduct, Semiring::MaxProduct, Semiring::MaxSum,
                       Semiring::MinSum}) {
        for (uint32_t seed = 1; seed <= 5; ++seed) {
            const Circuit c = testing::randomDag(6, 80, seed, s, 3);
            REQUIRE(verify(c).ok());
            const auto x = testing::randomInputs(c.numInputs(), seed + 100);
            const auto ref = evaluate(c, x, s);
            REQUIRE(ref.ok());
            for (bool reuse : {false, true}) {
                const DevicePlan p = buildDevicePlan(c, asapLevels(c), reuse);
                const HostRun h = executePlan(p, x, s, 0, false);
                for (size_t o = 0; o < c.numOutputs(); ++o) {
                    const double got = h.values[p.nodeSlot[c.outputs[o]]];
                    REQUIRE(!std::isnan(got));
                    CHECK(got == Approx(ref->values[c.outputs[o]]));
                }
                if (reuse) // liveness must actually save slots on a deep DAG
                    CHECK(p.numSlots < buildDevicePlan(c, asapLevels(c), false).numSlots);
            }
        }
    }
}

TEST_CASE("plan's backward gather equals inputAdjoints in every semiring", "[cuda][plan]") {
    for (Semiring s : {Semiring::SumProduct, Semiring::MaxProduct, Semiring::MaxSum,
                       Semiring::MinSum}) {
        for (uint32_t seed = 1; seed <= 5; ++seed) {
            const Circuit c = testing::randomDag(5, 60, seed, s, 2);
            const auto x = testing::randomInputs(c.numInputs(), seed + 7);
            const auto ref = evaluate(c, x, s);
            const DevicePlan p = buildDevicePlan(c, asapLevels(c), false);
            for (size_t o = 0; o < c.numOutputs(); ++o) {
                const HostRun h = executePlan(p, x, s, p.nodeSlot[c.outputs[o]], true);
                const auto adj = inputAdjoints(c, *ref, o);
                for (size_t i = 0; i < c.numInputs(); ++i) {
                    REQUIRE(!std::isnan(h.adjoints[i]));
                    CHECK(h.adjoints[i] == Approx(adj[i]));
                }
            }
        }
    }
}

TEST_CASE("ZBDD-shaped circuits: one level per ZBDD variable, ops grouped by kind",
          "[cuda][plan]") {
    const Circuit c = testing::randomZddCircuit(20, 8, 3);
    const DevicePlan p = buildDevicePlan(c, asapLevels(c), false);
    CHECK(p.numLevels <= 20);
    CHECK(p.numOps() == 20 * 8);
    for (uint32_t L = 0; L < p.numLevels; ++L)
        for (int g = 0; g < kGroupKinds; ++g)
            for (uint32_t k = p.groupStart[L * 3 + g]; k < p.groupStart[L * 3 + g + 1]; ++k) {
                const OpKind want = g == 0 ? OpKind::Plus : g == 1 ? OpKind::Times : OpKind::MulAdd;
                CHECK(c.kind[p.opNode[k]] == want);
            }
}

TEST_CASE("segments: narrow runs in one block, wide levels across the grid", "[cuda][plan]") {
    // widths: 3 narrow, 2 wide, 1 narrow (absorbed between wide), 1 wide, 5 narrow
    const std::vector<uint64_t> w{10, 20, 30, 5000, 9000, 40, 7000, 1, 2, 3, 4, 5};
    const auto segs = planSegments(w, 2048, 1024, 264);
    REQUIRE(segs.size() == 3);
    CHECK((!segs[0].grid && segs[0].first == 0 && segs[0].last == 3));
    CHECK((segs[1].grid && segs[1].first == 3 && segs[1].last == 7 && segs[1].blocks == 9));
    CHECK((!segs[2].grid && segs[2].first == 7 && segs[2].last == 12));
    // The grid never exceeds what can be resident (a cooperative launch would fail).
    CHECK(planSegments({1u << 30}, 2048, 1024, 264)[0].blocks == 264);
}
