// The device's batched traceback (backends/cuda/traceback_kernel.inc) compiled as host C++
// (tests/support/cuda_host_shim.h) over plans run on the host: every lane that says it traced
// must hold exactly the indicators of the plan's host traceback (plan_traceback.h, itself checked
// against the circuit's in device_plan_test.cpp), and a lane that stopped must have had a reason
// the host can see (two states of a variable on the term; a walk beyond its bounds).
#include "backends/cuda/plan_traceback.h"
#include "ir/interpret.h"

#include "tests/catch.hpp"
#include "tests/support/cuda_host_shim.h"
#include "tests/support/host_plan_run.h"
#include "tests/support/random_circuits.h"

#include <algorithm>
#include <cmath>
#include <map>
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
    if (status == uint32_t(TraceStatus::Traced)) {
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

} // namespace

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
