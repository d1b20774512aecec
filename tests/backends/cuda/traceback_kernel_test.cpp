// The device's batched traceback (backends/cuda/traceback_kernel.inc) compiled as host C++
// (tests/support/cuda_host_shim.h) over plans run on the host: every lane that says it traced
// must hold exactly the indicators of the plan's host traceback (plan_traceback.h, itself checked
// against the circuit's in device_plan_test.cpp), and a lane that stopped must have had a reason
// the host can see (two states of a variable on the term; a walk beyond its bounds). A lane that
// traced says it met a tie exactly where another of the circuit's terms, enumerated, reaches the
// optimum within the tie tolerance.
#include "backends/cuda/plan_traceback.h"
#include "ir/interpret.h"
#include "ir/mpe_tie.h"

#include "tests/catch.hpp"
#include "tests/support/cuda_host_shim.h"
#include "tests/support/host_plan_run.h"
#include "tests/support/random_circuits.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

namespace trace_emu {
using namespace zbddc::testing::cuda_host;
typedef unsigned long long u64;
struct uint2 {
    unsigned x, y;
};
struct uint4 {
    unsigned x, y, z, w;
};
typedef double T;
inline thread_local zbddc::Semiring ring = zbddc::Semiring::MaxProduct;
inline T zb_plus(T p, T q) {
    return zbddc::SemiringOps{ring}.plus(p, q);
}
inline T zb_times(T p, T q) {
    return zbddc::SemiringOps{ring}.times(p, q);
}
#define ZB_B 5u
#define ZB_TRACE_STEPS 64u
// The tie rule's text ahead of the kernel's, as generateKernelSource puts it, its arguments as a
// module of `ring` over linear values defines them.
#define ZB_TIE_FN inline
#define ZB_MPE_TIE_RULE(...) __VA_ARGS__
#include "ir/mpe_tie_rule.inc"
#undef ZB_MPE_TIE_RULE
#define ZB_TIE_MINIMIZE (ring == zbddc::Semiring::MinSum)
#define ZB_TIE_PRODUCT (ring == zbddc::Semiring::MaxProduct)
#define ZB_TRACEBACK_KERNEL(...) __VA_ARGS__
#include "backends/cuda/traceback_kernel.inc"
#undef ZB_TRACEBACK_KERNEL
} // namespace trace_emu

using namespace zbddc;
using namespace zbddc::cuda;

namespace {

static_assert(ZB_TRACE_STEPS == kTraceSteps);
constexpr uint32_t kLanes = ZB_B;

struct KernelRun {
    std::vector<uint32_t> states, status; // as the kernel leaves them: states[v * kLanes + lane]
};

// Every lane's slot values (lane-fastest) into the kernel, `ring` the arithmetic of `values`.
KernelRun runKernel(const DevicePlan &p, std::span<const InputInfo> inputs, uint32_t variables,
                    const std::vector<double> &values, Semiring ring, uint32_t outSlot) {
    auto arrays = tracebackArrays(p, inputs);
    REQUIRE(arrays.ok());
    std::vector<trace_emu::uint4> opInfo;
    for (uint32_t k = 0; k < p.numOps(); ++k)
        opInfo.push_back({p.opOut[k], p.opType[k], p.opOperandBegin[k], 0});
    KernelRun run;
    run.states.assign(std::max(variables, 1u) * kLanes, 12345); // the kernel must clear them
    run.status.assign(kLanes, 12345);
    trace_emu::zb_trace_args a{values.data(),
                               opInfo.data(),
                               p.slotOperands.data(),
                               arrays->producer.data(),
                               arrays->codeBegin.data(),
                               arrays->code.data(),
                               reinterpret_cast<const trace_emu::uint2 *>(arrays->indicator.data()),
                               run.states.data(),
                               run.status.data(),
                               p.inputBase,
                               p.numInputs,
                               p.firstComputedSlot,
                               variables,
                               outSlot,
                               kLanes,
                               arrays->maxSteps};
    trace_emu::ring = ring;
    testing::cuda_host::launch(1, kLanes, [&] { trace_emu::zb_traceback(a); });
    return run;
}

// Inputs as indicators: input i is variable i / per's state i % per (per 1: each its own).
std::vector<InputInfo> indicators(size_t inputs, uint32_t per) {
    std::vector<InputInfo> out(inputs);
    for (uint32_t i = 0; i < inputs; ++i)
        out[i] = {InputKind::Indicator, i / per, i % per, 0.0, ""};
    return out;
}

// The lanes' slot values, lane-fastest, of one host run per lane on its own inputs.
std::vector<std::vector<double>> laneRuns(const DevicePlan &p, const Circuit &c, Semiring s,
                                          uint32_t seed, std::vector<double> &interleaved) {
    std::vector<std::vector<double>> perLane;
    for (uint32_t l = 0; l < kLanes; ++l) {
        const auto x = testing::randomInputs(c.numInputs(), seed * 31 + l, 0.2, 0.95);
        perLane.push_back(testing::executePlan(p, x, s, 0, false).values);
    }
    interleaved.assign(size_t{p.numSlots} * kLanes, 0);
    for (uint32_t slot = 0; slot < p.numSlots; ++slot)
        for (uint32_t l = 0; l < kLanes; ++l)
            interleaved[size_t{slot} * kLanes + l] = perLane[l][slot];
    return perLane;
}

// Lane l of `run` against the host's traceback of its values: the same indicators where it
// traced (a clash where the host's term holds two states of one variable), or a bound's reason.
// Returns whether it traced.
bool checkLane(const DevicePlan &p, std::span<const InputInfo> inputs, uint32_t variables,
               const KernelRun &run, uint32_t l, const std::vector<double> &hostValues, Semiring s,
               bool logSpace, uint32_t outSlot) {
    auto host = tracebackPlan(p, s, logSpace, hostValues, outSlot);
    REQUIRE(host.ok());
    std::map<uint32_t, std::set<uint32_t>> want; // variable → the states of its indicators met
    for (uint32_t i : *host)
        want[inputs[i].variable].insert(inputs[i].state);
    const bool clash =
        std::any_of(want.begin(), want.end(), [](const auto &vs) { return vs.second.size() > 1; });
    const uint32_t status = run.status[l];
    INFO("lane " << l << " status " << status << " (" << traceStatusText(status) << ")");
    if (walkEnded(status)) {
        CHECK_FALSE(clash);
        for (uint32_t v = 0; v < variables; ++v) {
            const uint32_t got = run.states[v * kLanes + l];
            if (want.count(v))
                CHECK(got == *want[v].begin());
            else
                CHECK(got == kNone);
        }
        return true;
    }
    if (status == uint32_t(TraceStatus::Clash))
        CHECK(clash);
    else
        CHECK(
            (status == uint32_t(TraceStatus::TooLong) || status == uint32_t(TraceStatus::TooDeep)));
    return false;
}

// The values under `s` of every term of node `id` (a proof tree: both operands of each ⊗, one of
// each ⊕) at inputs `x`, enumerated; `memo` keeps each node's.
const std::vector<double> &termValues(const Circuit &c, NodeId id, const std::vector<double> &x,
                                      Semiring s, std::map<NodeId, std::vector<double>> &memo) {
    if (auto it = memo.find(id); it != memo.end())
        return it->second;
    const SemiringOps ring{s};
    std::vector<double> out;
    const auto products = [&](const std::vector<double> &l, const std::vector<double> &r) {
        for (double u : l)
            for (double v : r)
                out.push_back(ring.times(u, v));
    };
    switch (c.kind[id]) {
    case OpKind::Input:
        out = {x[c.a[id]]};
        break;
    case OpKind::Zero:
        break;
    case OpKind::One:
        out = {ring.one()};
        break;
    case OpKind::Const:
        out = {c.constants[c.a[id]]};
        break;
    case OpKind::Plus:
        out = termValues(c, c.a[id], x, s, memo);
        for (double v : termValues(c, c.b[id], x, s, memo))
            out.push_back(v);
        break;
    case OpKind::Times:
        products(termValues(c, c.a[id], x, s, memo), termValues(c, c.b[id], x, s, memo));
        break;
    case OpKind::MulAdd:
        products(termValues(c, c.a[id], x, s, memo), termValues(c, c.b[id], x, s, memo));
        for (double v : termValues(c, c.c[id], x, s, memo))
            out.push_back(v);
        break;
    }
    return memo[id] = std::move(out);
}

} // namespace

TEST_CASE("the batched traceback reports a tie exactly where another term reaches the optimum",
          "[cuda][traceback][ties]") {
    // Inputs from three values whose products (sums) are exact make ties common; the same
    // products over their natural logs round, by far less than the tolerance.
    size_t tied = 0, untied = 0;
    for (Semiring s : {Semiring::MaxProduct, Semiring::MaxSum, Semiring::MinSum})
        for (const bool logs : {false, true})
            for (uint32_t seed = 1; seed <= 8; ++seed) {
                if (logs && s != Semiring::MaxProduct)
                    continue;
                const Semiring walked = logs ? Semiring::MaxSum : s; // the module's arithmetic
                Circuit c = testing::randomZddCircuit({.vars = 9, .width = 3}, seed);
                c.semiring = walked;
                const DevicePlan p = testing::planFor(c, seed % 2 ? 3 : 0, kLanes);
                std::mt19937 rng(seed);
                const double choices[3][3] = {{0.25, 0.5, 1.0}, {-2, -1, 0}, {0, 1, 2}};
                const int row = s == Semiring::MaxProduct ? 0 : s == Semiring::MaxSum ? 1 : 2;
                std::vector<std::vector<double>> perLane, xs;
                std::vector<double> values(size_t{p.numSlots} * kLanes, 0);
                for (uint32_t l = 0; l < kLanes; ++l) {
                    std::vector<double> x(c.numInputs());
                    for (double &v : x)
                        v = logs ? std::log(choices[row][rng() % 3]) : choices[row][rng() % 3];
                    perLane.push_back(testing::executePlan(p, x, walked, 0, false).values);
                    for (uint32_t slot = 0; slot < p.numSlots; ++slot)
                        values[size_t{slot} * kLanes + l] = perLane[l][slot];
                    xs.push_back(std::move(x));
                }
                const auto inputs = indicators(c.numInputs(), 1);
                const auto vars = static_cast<uint32_t>(c.numInputs());
                const KernelRun run = runKernel(p, inputs, vars, values, walked, p.outputSlots[0]);
                for (uint32_t l = 0; l < kLanes; ++l) {
                    INFO(semiringName(s)
                         << (logs ? " over logs" : "") << " seed " << seed << " lane " << l);
                    REQUIRE(
                        checkLane(p, inputs, vars, run, l, perLane[l], s, logs, p.outputSlots[0]));
                    std::map<NodeId, std::vector<double>> memo;
                    const std::vector<double> &terms =
                        termValues(c, c.outputs[0], xs[l], walked, memo);
                    REQUIRE(!terms.empty());
                    double best = terms[0];
                    for (double v : terms)
                        best = SemiringOps{walked}.plus(best, v);
                    const auto reaching = std::count_if(terms.begin(), terms.end(), [&](double v) {
                        return reachesWithinTie(walked, v, best);
                    });
                    const bool tiedLane = run.status[l] == uint32_t(TraceStatus::TracedTied);
                    CHECK(tiedLane == (reaching > 1));
                    (tiedLane ? tied : untied) += 1;
                }
            }
    INFO(tied << " lanes tied, " << untied << " not");
    CHECK((tied > 0 && untied > 0));
}

TEST_CASE("the device's batched traceback finds each lane's optimal term, on ZBDD circuits",
          "[cuda][traceback]") {
    size_t traced = 0, lanes = 0;
    for (Semiring s : {Semiring::MaxProduct, Semiring::MaxSum, Semiring::MinSum})
        for (int level : {0, 3})
            for (uint32_t seed = 1; seed <= 5; ++seed) {
                Circuit c = testing::randomZddCircuit({.vars = 18, .width = 6, .roots = 2}, seed);
                c.semiring = s;
                const DevicePlan p = testing::planFor(c, level, kLanes);
                std::vector<double> values;
                const auto perLane = laneRuns(p, c, s, seed, values);
                const auto inputs = indicators(c.numInputs(), 1);
                const auto vars = static_cast<uint32_t>(c.numInputs());
                for (size_t o = 0; o < c.numOutputs(); ++o) {
                    INFO(semiringName(s) << " O" << level << " seed " << seed << " output " << o);
                    const KernelRun run = runKernel(p, inputs, vars, values, s, p.outputSlots[o]);
                    for (uint32_t l = 0; l < kLanes; ++l, ++lanes)
                        traced += checkLane(p, inputs, vars, run, l, perLane[l], s, false,
                                            p.outputSlots[o]);
                }
                if (s == Semiring::MaxProduct) { // the same walk over natural logs (max-sum)
                    std::vector<double> logs = values;
                    for (double &v : logs)
                        v = std::log(v);
                    const KernelRun run =
                        runKernel(p, inputs, vars, logs, Semiring::MaxSum, p.outputSlots[0]);
                    for (uint32_t l = 0; l < kLanes; ++l) {
                        std::vector<double> laneLogs = perLane[l];
                        for (double &v : laneLogs)
                            v = std::log(v);
                        CHECK(checkLane(p, inputs, vars, run, l, laneLogs, s, true,
                                        p.outputSlots[0]));
                    }
                }
            }
    CHECK(traced == lanes); // a ZBDD's term is a path: every walk ends
}

TEST_CASE("the batched traceback reports clashing states and walks past its bounds",
          "[cuda][traceback]") {
    size_t clashes = 0, bounded = 0, traced = 0;
    for (uint32_t seed = 1; seed <= 12; ++seed) {
        // Pairs of inputs as two states of one variable: a term holding both clashes.
        Circuit z = testing::randomZddCircuit({.vars = 18, .width = 6}, seed);
        z.semiring = Semiring::MaxProduct;
        // General DAGs (x ⊗ x, shared operands): a walk may repeat ops until its bound.
        const Circuit g = testing::randomCircuit(
            {.inputs = 6, .ops = 120, .outputs = 1, .semiring = Semiring::MaxProduct}, seed);
        for (const Circuit *c : {static_cast<const Circuit *>(&z), &g}) {
            const DevicePlan p = testing::planFor(*c, 3, kLanes);
            std::vector<double> values;
            const auto perLane = laneRuns(p, *c, Semiring::MaxProduct, seed, values);
            const auto inputs = indicators(c->numInputs(), 2);
            const auto vars = static_cast<uint32_t>((c->numInputs() + 1) / 2);
            const KernelRun run =
                runKernel(p, inputs, vars, values, Semiring::MaxProduct, p.outputSlots[0]);
            for (uint32_t l = 0; l < kLanes; ++l) {
                INFO("seed " << seed << (c == &z ? " ZBDD" : " DAG"));
                traced += checkLane(p, inputs, vars, run, l, perLane[l], Semiring::MaxProduct,
                                    false, p.outputSlots[0]);
                clashes += run.status[l] == uint32_t(TraceStatus::Clash);
                bounded += run.status[l] == uint32_t(TraceStatus::TooLong) ||
                           run.status[l] == uint32_t(TraceStatus::TooDeep);
            }
        }
    }
    INFO(traced << " traced, " << clashes << " clashes, " << bounded << " past a bound");
    CHECK(traced > 0);
    CHECK(clashes > 0);

    // x ⊗ x forty times over: a term of 2^40 visits, stopped at the plan's op count.
    Circuit c;
    c.semiring = Semiring::MaxProduct;
    c.variables.push_back({"v", {"s"}});
    c.addInputInfo({InputKind::Indicator, 0, 0, 0.0, ""});
    NodeId n = c.addInput(0);
    for (int k = 0; k < 40; ++k)
        n = c.addTimes(n, n);
    c.addOutput(n);
    const DevicePlan p = testing::planFor(c, 0, kLanes);
    std::vector<double> values;
    laneRuns(p, c, Semiring::MaxProduct, 1, values);
    const auto inputs = indicators(1, 1);
    const KernelRun run = runKernel(p, inputs, 1, values, Semiring::MaxProduct, p.outputSlots[0]);
    for (uint32_t l = 0; l < kLanes; ++l)
        CHECK(run.status[l] == uint32_t(TraceStatus::TooLong));
}
