// The DevicePlan is checked on the host, without a GPU: a plain executor of its arrays (what the
// generated kernels do, level by level, in float64) must agree with the reference evaluator, and
// its backward gather lists must reproduce inputAdjoints.
#include "backends/cuda/cuda_model.h"
#include "backends/cuda/device_plan.h"
#include "backends/cuda/schedule/gpu_passes.h"
#include "compiler/passes/pipeline.h"
#include "ir/interpret.h"

#include "tests/catch.hpp"
#include "tests/support/random_circuits.h"

#include <cmath>

using namespace zbddc;
using namespace zbddc::cuda;

namespace {

struct HostRun {
    std::vector<double> values, adjoints;
};

// Evaluates op k's template. With `pos` >= 0 it returns instead the op's coefficient for operand
// pos: that operand set to One and, at each ⊕ above it, the other side dropped (⊕ Zero). This is
// a different formulation from the generator's sibling products, checked through the oracle.
double evalOp(const DevicePlan &p, uint32_t k, const std::vector<double> &v, const SemiringOps &r,
              int pos = -1) {
    std::vector<std::pair<double, bool>> st;
    int leaf = 0;
    const uint32_t *o = &p.operands[p.opOperandBegin[k]];
    for (uint32_t step : p.typeCode[p.opType[k]]) {
        if (step <= 1) {
            const bool here = leaf == pos;
            st.push_back({here ? r.one() : v[o[leaf]], here});
            ++leaf;
            continue;
        }
        auto [q, cq] = st.back();
        st.pop_back();
        auto [a, ca] = st.back();
        if (step == 2)
            st.back() = {r.times(a, q), ca || cq};
        else
            st.back() = ca ? std::pair{a, true} : cq ? std::pair{q, true} : std::pair{r.plus(a, q), false};
    }
    return st.back().first;
}

// Executes the plan as the kernels would: levels in order, groups in order; then backward steps.
HostRun executePlan(const DevicePlan &p, const std::vector<double> &x, Semiring s, uint32_t outSlot,
                    bool backward) {
    const SemiringOps r{s};
    HostRun h;
    h.values.assign(p.numSlots, std::nan(""));
    std::copy(x.begin(), x.end(), h.values.begin() + p.inputBase);
    std::copy(p.constantValues.begin(), p.constantValues.end(), h.values.begin() + p.constantBase);
    for (uint32_t L = 0; L < p.numLevels(); ++L) {
        const uint32_t k0 = p.groupOpBegin[p.levelGroupBegin[L]];
        const uint32_t k1 = p.groupOpBegin[p.levelGroupBegin[L + 1]];
        std::vector<double> results;
        for (uint32_t k = k0; k < k1; ++k)
            results.push_back(evalOp(p, k, h.values, r));
        for (uint32_t k = k0; k < k1; ++k) // a level's writes land after its reads
            h.values[p.opOut[k]] = results[k - k0];
    }
    if (!backward)
        return h;
    h.adjoints.assign(p.numSlots, std::nan(""));
    auto gather = [&](uint32_t item, uint32_t slot) {
        double acc = slot == outSlot ? r.one() : r.zero();
        for (uint32_t e = p.edgeStart[item]; e < p.edgeStart[item + 1]; ++e)
            acc = r.plus(acc, r.times(h.adjoints[p.opOut[p.edgeOp[e]]],
                                      evalOp(p, p.edgeOp[e], h.values, r, int(p.edgePos[e]))));
        h.adjoints[slot] = acc;
    };
    for (uint32_t L = p.numLevels(); L-- > 0;)
        for (uint32_t k = p.groupOpBegin[p.levelGroupBegin[L]];
             k < p.groupOpBegin[p.levelGroupBegin[L + 1]]; ++k)
            gather(k, p.opOut[k]);
    for (uint32_t i = 0; i < p.numInputs; ++i)
        gather(p.numOps() + i, p.inputBase + i);
    return h;
}

const Semiring kAll[] = {Semiring::SumProduct, Semiring::MaxProduct, Semiring::MaxSum,
                         Semiring::MinSum};

} // namespace

TEST_CASE("plan executed level by level equals the reference evaluator, with and without slot reuse",
          "[cuda][plan]") {
    for (Semiring s : kAll) {
        for (uint32_t seed = 1; seed <= 5; ++seed) {
            const Circuit c =
                testing::randomCircuit({.inputs = 6, .ops = 80, .outputs = 3, .semiring = s}, seed);
            REQUIRE(verify(c).ok());
            const auto x = testing::randomInputs(c.numInputs(), seed + 100);
            const auto ref = evaluate(c, x, s);
            REQUIRE(ref.ok());
            for (bool reuse : {false, true}) {
                const DevicePlan p = buildDevicePlan(c, asapLevels(c), reuse);
                const HostRun h = executePlan(p, x, s, 0, false);
                for (size_t o = 0; o < c.numOutputs(); ++o) {
                    const double got = h.values[p.outputSlots[o]];
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
    for (Semiring s : kAll) {
        for (uint32_t seed = 1; seed <= 5; ++seed) {
            const Circuit c =
                testing::randomCircuit({.inputs = 5, .ops = 60, .outputs = 2, .semiring = s}, seed);
            const auto x = testing::randomInputs(c.numInputs(), seed + 7);
            const auto ref = evaluate(c, x, s);
            const DevicePlan p = buildDevicePlan(c, asapLevels(c), false);
            for (size_t o = 0; o < c.numOutputs(); ++o) {
                const HostRun h = executePlan(p, x, s, p.outputSlots[o], true);
                const auto adj = inputAdjoints(c, *ref, o);
                for (size_t i = 0; i < c.numInputs(); ++i) {
                    REQUIRE(!std::isnan(h.adjoints[i]));
                    CHECK(h.adjoints[i] == Approx(adj[i]));
                }
            }
        }
    }
}

TEST_CASE("ZBDD-shaped circuits: one level per ZBDD variable, ops grouped by type",
          "[cuda][plan]") {
    const Circuit c = testing::randomZddCircuit({.vars = 20, .width = 8}, 3);
    const DevicePlan p = buildDevicePlan(c, asapLevels(c), false);
    CHECK(p.numLevels() <= 20);
    CHECK(p.numOps() == 20 * 8);
    for (uint32_t g = 0; g < p.groupType.size(); ++g)
        for (uint32_t k = p.groupOpBegin[g]; k < p.groupOpBegin[g + 1]; ++k)
            CHECK(p.opType[k] == p.groupType[g]);
}

TEST_CASE("plans from the passes' Schedules (merged types, preloads) equal the reference",
          "[cuda][plan][schedule]") {
    for (Semiring s : kAll)
        for (int opt = 0; opt <= 3; ++opt)
            for (uint32_t seed = 1; seed <= 3; ++seed) {
                const Circuit c =
                    testing::randomZddCircuit({.vars = 25, .width = 12, .roots = 2}, seed);
                Circuit cs = c;
                cs.semiring = s;
                PipelineOptions po = withGpuPasses({});
                po.level = opt;
                auto names = passList(po);
                REQUIRE(names.ok());
                // Keep every value for the backward pass: the no-reuse slot assignment.
                for (std::string &n : *names)
                    if (n == "assign-slots")
                        n = "assign-slots-noreuse";
                po.passes = *names;
                auto sched = buildSchedule(cs, po);
                if (!sched)
                    FAIL(sched.error().str());
                auto p = buildDevicePlan(*sched);
                if (!p)
                    FAIL(p.error().str());
                INFO("O" << opt << " " << semiringName(s) << " types " << p->typeCode.size());
                REQUIRE(!p->reusesSlots);
                const auto x = testing::randomInputs(c.numInputs(), seed + 40, 0.3, 0.9);
                const auto ref = evaluate(cs, x, s);
                const HostRun h = executePlan(*p, x, s, p->outputSlots[0], true);
                for (size_t o = 0; o < c.numOutputs(); ++o)
                    CHECK(h.values[p->outputSlots[o]] == Approx(ref->values[c.outputs[o]]));
                const auto adj = inputAdjoints(cs, *ref, 0);
                for (size_t i = 0; i < c.numInputs(); ++i) {
                    REQUIRE(!std::isnan(h.adjoints[p->inputBase + i]));
                    CHECK(h.adjoints[p->inputBase + i] == Approx(adj[i]));
                }
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
