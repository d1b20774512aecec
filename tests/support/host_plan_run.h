// A DevicePlan run on the host, as the generated kernels run it (levels in order, each level's
// blocks in order, a preloaded block's x operands read from its tile), in float64: the tests'
// stand-in for the device where there is none (device_plan_test.cpp, traceback_kernel_test.cpp).
#pragma once

#include "backends/cuda/device_plan.h"
#include "backends/cuda/schedule/gpu_passes.h"
#include "compiler/passes/pipeline.h"
#include "ir/semiring.h"

#include "tests/catch.hpp"

#include <cmath>
#include <utility>
#include <vector>

namespace zbddc::testing {

using cuda::allInputPieces;
using cuda::buildDevicePlan;
using cuda::DevicePlan;
using cuda::InputPieces;

struct HostRun {
    std::vector<double> values, adjoints;
};

// Evaluates op k's template over `operand(leaf)`. With `pos` >= 0 it returns instead the op's
// coefficient for operand pos: that operand set to One and, at each ⊕ above it, the other side
// dropped (⊕ Zero). This is a different formulation from the generator's sibling products,
// checked through the oracle.
template <class Operand>
double evalOp(const DevicePlan &p, uint32_t k, Operand operand, const SemiringOps &r,
              int pos = -1) {
    std::vector<std::pair<double, bool>> st;
    int leaf = 0;
    for (uint32_t step : p.typeCode[p.opType[k]]) {
        if (step <= 1) {
            const bool here = leaf == pos;
            st.push_back({here ? r.one() : operand(step, leaf), here});
            ++leaf;
            continue;
        }
        auto [q, cq] = st.back();
        st.pop_back();
        auto [a, ca] = st.back();
        if (step == 2)
            st.back() = {r.times(a, q), ca || cq};
        else
            st.back() = ca   ? std::pair{a, true}
                        : cq ? std::pair{q, true}
                             : std::pair{r.plus(a, q), false};
    }
    return st.back().first;
}

// Executes the plan as the kernels would: levels in order, each level's blocks in order (a
// preloaded block copies its tile first and reads its x operands there); then backward steps
// over every operand's slot.
inline HostRun executePlan(const DevicePlan &p, const std::vector<double> &x, Semiring s,
                           uint32_t outSlot, bool backward) {
    const SemiringOps r{s};
    HostRun h;
    h.values.assign(p.numSlots, std::nan(""));
    std::copy(x.begin(), x.end(), h.values.begin() + p.inputBase);
    std::copy(p.constantValues.begin(), p.constantValues.end(), h.values.begin() + p.constantBase);
    for (uint32_t L = 0; L < p.numLevels(); ++L) {
        std::vector<std::pair<uint32_t, double>> results;
        for (uint32_t b = p.levelBlockBegin[L]; b < p.levelBlockBegin[L + 1]; ++b) {
            std::vector<double> tile;
            for (uint32_t j = p.blockLoadBegin[b]; j < p.blockLoadBegin[b + 1]; ++j)
                tile.push_back(h.values[p.blockLoads[j]]);
            for (uint32_t k = p.blockOpBegin[b]; k < p.blockOpBegin[b + 1]; ++k) {
                const uint32_t *o = &p.operands[p.opOperandBegin[k]];
                results.push_back({p.opOut[k], evalOp(
                                                   p, k,
                                                   [&](uint32_t step, int leaf) {
                                                       return step == 1 && !tile.empty()
                                                                  ? tile.at(o[leaf])
                                                                  : h.values[o[leaf]];
                                                   },
                                                   r)});
            }
        }
        for (auto [slot, v] : results) // a level's writes land after its reads
            h.values[slot] = v;
    }
    if (!backward)
        return h;
    h.adjoints.assign(p.numSlots, std::nan(""));
    auto gather = [&](uint32_t e0, uint32_t e1, double acc) {
        for (uint32_t e = e0; e < e1; ++e) {
            const uint32_t k = p.edgeOp[e];
            const uint32_t *o = &p.slotOperands[p.opOperandBegin[k]];
            const double coef = evalOp(
                p, k, [&](uint32_t, int leaf) { return h.values[o[leaf]]; }, r, int(p.edgePos[e]));
            acc = r.plus(acc, r.times(h.adjoints[p.opOut[k]], coef));
        }
        return acc;
    };
    auto start = [&](uint32_t slot) { return slot == outSlot ? r.one() : r.zero(); };
    for (uint32_t L = p.numLevels(); L-- > 0;)
        for (uint32_t k = p.groupOpBegin[p.levelGroupBegin[L]];
             k < p.groupOpBegin[p.levelGroupBegin[L + 1]]; ++k)
            h.adjoints[p.opOut[k]] = gather(p.edgeStart[k], p.edgeStart[k + 1], start(p.opOut[k]));
    // The inputs as their two steps run: each piece's ⊕, then each input's pieces in order.
    const InputPieces pieces = allInputPieces(p);
    for (size_t j = 0; j < pieces.inputs.size(); ++j) {
        const uint32_t slot = p.inputBase + pieces.inputs[j];
        double acc = start(slot);
        for (uint32_t q = pieces.pieceBegin[j]; q < pieces.pieceBegin[j + 1]; ++q)
            acc = r.plus(acc, gather(pieces.edges[2 * q], pieces.edges[2 * q + 1], r.zero()));
        h.adjoints[slot] = acc;
    }
    return h;
}

// The plan the CUDA backend compiles for `c` at schedule level `level` and `lanes` lanes
// (shared-memory tiles too, unlike its default, so the tests cover them).
inline DevicePlan planFor(const Circuit &c, int level, uint32_t lanes, bool keepValues = true,
                          uint32_t narrowWork = 2048, bool preload = true) {
    auto sched =
        buildSchedule(c, cudaPipelineOptions(level, lanes, 1024, narrowWork, keepValues, preload));
    if (!sched)
        FAIL(sched.error().str());
    auto p = buildDevicePlan(*sched);
    if (!p)
        FAIL(p.error().str());
    return std::move(*p);
}

} // namespace zbddc::testing
