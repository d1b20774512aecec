// The generated kernels on a real GPU against the reference evaluator: random circuits, every
// semiring, float32/float64/log space, latency (B = 1) and batch lanes, block-only, grid-only and
// mixed launch plans, forward and backward, traceback, and a batch enqueued on a caller's stream.
// Results are poisoned with NaN before every run and NaN never compares equal. Exits 77
// (skipped) where no GPU is present.
#include "backends/cuda/cuda_model.h"
#include "backends/cuda/schedule/gpu_passes.h"
#include "compiler/passes/pipeline.h"
#include "ir/interpret.h"
#include "runtime/cuda_circuit.h"

#include "tests/catch.hpp"
#include "tests/support/close.h"
#include "tests/support/cuda_model_runs.h"
#include "tests/support/random_circuits.h"
#include "tests/support/skip.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace zbddc;
using namespace zbddc::cuda;
using zbddc::testing::close;
using zbddc::testing::Run;
using zbddc::testing::runSynchronously;

namespace {

// Runs before Catch's main: a machine without a GPU skips the whole program with CTest's code 77.
const bool gpuPresent = [] {
    testing::skipProgramUnless(cudaAvailable(), "no GPU");
    auto info = deviceInfo(0);
    if (info)
        std::printf("GPU: %s (%s, %d SMs, driver %d)\n", info->name.c_str(), info->arch().c_str(),
                    info->multiprocessors, info->driverVersion);
    return true;
}();

struct Mode {
    const char *name;
    uint32_t narrowWork;
    bool singleLaunch; // one launch per pass (single_launch.h) rather than the level kernels
};
const Mode kModes[] = {{"block-only", 0xffffffffu, false},
                       {"grid-only", 0, false},
                       {"mixed", 64, false},
                       {"single-launch", 2048, true}};

struct NumericCase {
    Precision precision;
    bool log;
    double tol;
};
const NumericCase kNumerics[] = {{Precision::Float64, false, 1e-9},
                                 {Precision::Float32, false, 2e-4},
                                 {Precision::Float64, true, 1e-9},
                                 {Precision::Float32, true, 2e-4}};

bool logAllowed(Semiring s) {
    return s == Semiring::SumProduct || s == Semiring::MaxProduct;
}

// Forward (all outputs) and backward (output 0) of `c` on `count` random vectors, compared with
// the reference evaluator vector by vector; `run` runs them on the GPU.
template <class RunOnGpu = decltype(&runSynchronously)>
void checkAgainstReference(const Circuit &c, const CudaOptions &o, size_t count, uint32_t seed,
                           double tol, RunOnGpu run = &runSynchronously) {
    const Semiring s = o.semiring.value_or(c.semiring);
    const Numeric refNumeric = o.logSpace ? Numeric::Log : Numeric::Float64;
    auto model = compileCircuitForCuda(c, o);
    if (!model)
        FAIL(model.error().str());
    if (o.singleLaunch)
        CHECK(model->singleLaunch().has_value() == *o.singleLaunch);
    const auto xs = testing::randomInputs(count * c.numInputs(), seed, 0.3, 0.9);
    const Run got = run(*model, xs, count);
    REQUIRE(got.outputs.size() == count * c.numOutputs());
    REQUIRE(got.adjoints.size() == count * c.numInputs());
    int bad = 0;
    for (size_t v = 0; v < count; ++v) {
        std::span<const double> x(xs.data() + v * c.numInputs(), c.numInputs());
        auto ref = evaluate(c, x, s, refNumeric);
        REQUIRE(ref.ok());
        for (size_t k = 0; k < c.numOutputs(); ++k)
            if (!close(got.outputs[v * c.numOutputs() + k], ref->values[c.outputs[k]], tol) &&
                bad++ < 5)
                FAIL_CHECK("vector " << v << " output " << k << ": gpu "
                                     << got.outputs[v * c.numOutputs() + k] << " reference "
                                     << ref->values[c.outputs[k]]);
        const auto adj = inputAdjoints(c, *ref, 0);
        for (size_t i = 0; i < c.numInputs(); ++i)
            if (!close(got.adjoints[v * c.numInputs() + i], adj[i], tol) && bad++ < 5)
                FAIL_CHECK("vector " << v << " adjoint of x[" << i << "]: gpu "
                                     << got.adjoints[v * c.numInputs() + i] << " reference "
                                     << adj[i]);
    }
    CHECK(bad == 0);
}

} // namespace

TEST_CASE("random DAGs: every semiring, number type and launch plan, forward and backward",
          "[gpu]") {
    for (Semiring s :
         {Semiring::SumProduct, Semiring::MaxProduct, Semiring::MaxSum, Semiring::MinSum})
        for (const NumericCase &n : kNumerics) {
            if (n.log && !logAllowed(s))
                continue;
            for (const Mode &m : kModes)
                for (uint32_t batch : {1u, 33u}) {
                    const uint32_t seed = 11 * batch + static_cast<uint32_t>(s);
                    const Circuit c = testing::randomCircuit(
                        {.inputs = 9, .ops = 300, .outputs = 3, .semiring = s}, seed);
                    CudaOptions o;
                    o.precision = n.precision;
                    o.logSpace = n.log;
                    o.batch = batch;
                    o.narrowWork = m.narrowWork;
                    o.singleLaunch = m.singleLaunch;
                    INFO(semiringName(s)
                         << " " << (n.precision == Precision::Float64 ? "f64" : "f32")
                         << (n.log ? " log" : "") << " " << m.name << " B=" << batch);
                    // Two batches' worth plus a partial one: chunking and idle lanes.
                    checkAgainstReference(c, o, batch == 1 ? 3 : 2 * batch + 5, seed + 1, n.tol);
                }
        }
}

TEST_CASE("wide ZBDD-shaped circuits across the grid, latency and throughput lanes", "[gpu]") {
    const Circuit c = testing::randomZddCircuit({.vars = 40, .width = 5000, .roots = 2}, 5);
    for (uint32_t batch : {1u, 256u}) {
        CudaOptions o;
        o.batch = batch;
        INFO("B=" << batch);
        checkAgainstReference(c, o, batch == 1 ? 2 : batch + 3, 77, 1e-9);
        o.precision = Precision::Float32;
        o.logSpace = true;
        checkAgainstReference(c, o, batch == 1 ? 2 : batch, 78, 1e-4);
    }
}

TEST_CASE("slot reuse (forward-only batches) gives the same outputs", "[gpu]") {
    const Circuit c = testing::randomZddCircuit({.vars = 60, .width = 700, .roots = 3}, 9);
    CudaOptions o;
    o.backward = false;
    o.batch = 64;
    auto model = compileCircuitForCuda(c, o);
    REQUIRE(model.ok());
    CHECK(model->plan().numSlots < c.numNodes());
    const size_t count = 100;
    const auto xs = testing::randomInputs(count * c.numInputs(), 3);
    REQUIRE(model->poisonResults().ok());
    auto out = model->evaluate(xs, count);
    REQUIRE(out.ok());
    for (size_t v = 0; v < count; ++v) {
        auto ref = evaluate(c, std::span(xs.data() + v * c.numInputs(), c.numInputs()),
                            Semiring::SumProduct);
        for (size_t k = 0; k < c.numOutputs(); ++k)
            REQUIRE(close((*out)[v * c.numOutputs() + k], ref->values[c.outputs[k]], 1e-9));
    }
    CHECK(!model->adjoints(xs, count, 0).ok()); // refused, not wrong
}

TEST_CASE("max/min semirings: traceback from device values equals the reference's", "[gpu]") {
    for (Semiring s : {Semiring::MaxProduct, Semiring::MaxSum, Semiring::MinSum})
        for (uint32_t seed = 1; seed <= 3; ++seed) {
            const Circuit c = testing::randomZddCircuit({.vars = 30, .width = 40}, seed);
            CudaOptions o;
            o.semiring = s;
            auto model = compileCircuitForCuda(c, o);
            REQUIRE(model.ok());
            const auto x = testing::randomInputs(c.numInputs(), seed * 31);
            auto got = model->traceback(x, 0);
            REQUIRE(got.ok());
            CHECK(*got == traceback(c, *evaluate(c, x, s), 0));
        }
}

TEST_CASE("a PR that underflows float64 is right in log space", "[gpu]") {
    // Two interleaved chains over 200 levels: every one of the 2^200 terms has 200 factors near
    // 1e-3, so PR is about 1e-540, far below float64's smallest number.
    Circuit c;
    const uint32_t n = 200;
    for (uint32_t i = 0; i < 2 * n; ++i)
        c.addInputInfo({});
    NodeId a = c.addOne(), b = c.addOne();
    for (uint32_t v = 0; v < n; ++v) {
        const NodeId xa = c.addInput(2 * v), xb = c.addInput(2 * v + 1);
        const NodeId a2 = c.addMulAdd(a, xa, c.addTimes(b, xb));
        const NodeId b2 = c.addMulAdd(b, xa, c.addTimes(a, xb));
        a = a2;
        b = b2;
    }
    c.addOutput(a);
    const auto x = testing::randomInputs(c.numInputs(), 5, 0.5e-3, 1.5e-3);
    auto lin = evaluate(c, x, Semiring::SumProduct);
    auto log = evaluate(c, x, Semiring::SumProduct, Numeric::Log);
    REQUIRE(lin->values[c.outputs[0]] == 0.0); // the premise: float64 underflows
    REQUIRE(std::isfinite(log->values[c.outputs[0]]));
    CudaOptions o;
    o.logSpace = true;
    auto model = compileCircuitForCuda(c, o);
    REQUIRE(model.ok());
    CHECK(model->numericName() == "log-float64");
    auto out = model->evaluate(x, 1);
    REQUIRE(out.ok());
    CHECK(close((*out)[0], log->values[c.outputs[0]], 1e-10));
}

namespace {
// The schedule the backend compiles for `lanes` lanes at -O`opt`, every value kept unless `reuse`,
// with shared-memory tiles (not its default), so the kernels' tile path runs here too.
Schedule scheduleFor(const Circuit &c, int opt, bool reuse, uint32_t lanes, uint32_t narrowWork) {
    auto s = buildSchedule(c, cudaPipelineOptions(opt, lanes, 1024, narrowWork, !reuse, true));
    if (!s)
        FAIL(s.error().str());
    return std::move(*s);
}
} // namespace

TEST_CASE("the passes' Schedules (merged types, phases, preloads) on the GPU, every semiring",
          "[gpu][schedule]") {
    for (Semiring s :
         {Semiring::SumProduct, Semiring::MaxProduct, Semiring::MaxSum, Semiring::MinSum})
        for (int opt : {1, 3})
            for (uint32_t batch : {1u, 40u}) {
                Circuit c =
                    testing::randomZddCircuit({.vars = 30, .width = 300, .roots = 2}, 3 + opt);
                c.semiring = s;
                const Schedule sched = scheduleFor(c, opt, false, batch, 256);
                for (const NumericCase &n : kNumerics) {
                    if (n.log && !logAllowed(s))
                        continue;
                    CudaOptions o;
                    o.precision = n.precision;
                    o.logSpace = n.log;
                    o.batch = batch;
                    o.narrowWork = 256;
                    o.singleLaunch = false; // the schedule's phases and preloads
                    INFO("O" << opt << " " << semiringName(s)
                             << " f64=" << (n.precision == Precision::Float64) << " log=" << n.log
                             << " B=" << batch);
                    auto model = compileCuda(c, sched, o);
                    if (!model)
                        FAIL(model.error().str());
                    const size_t count = batch == 1 ? 2 : batch + 3;
                    const auto xs =
                        testing::randomInputs(count * c.numInputs(), opt + batch, 0.3, 0.9);
                    REQUIRE(model->poisonResults().ok());
                    auto grad = model->adjoints(xs, count, 0);
                    if (!grad)
                        FAIL(grad.error().str());
                    int bad = 0;
                    for (size_t v = 0; v < count; ++v) {
                        auto ref =
                            evaluate(c, std::span(xs.data() + v * c.numInputs(), c.numInputs()), s,
                                     n.log ? Numeric::Log : Numeric::Float64);
                        bad += !close(grad->values[v], ref->values[c.outputs[0]], n.tol);
                        const auto adj = inputAdjoints(c, *ref, 0);
                        for (size_t i = 0; i < c.numInputs(); ++i)
                            bad += !close(grad->adjoints[v * c.numInputs() + i], adj[i], n.tol);
                    }
                    CHECK(bad == 0);
                }
            }
    // -O3 with slot reuse: forward only.
    const Circuit c = testing::randomZddCircuit({.vars = 40, .width = 500}, 8);
    CudaOptions o;
    o.backward = false;
    o.batch = 64;
    auto model = compileCuda(c, scheduleFor(c, 3, true, 64, o.narrowWork), o);
    REQUIRE(model.ok());
    const auto xs = testing::randomInputs(70 * c.numInputs(), 2, 0.3, 0.9);
    REQUIRE(model->poisonResults().ok());
    auto out = model->evaluate(xs, 70);
    REQUIRE(out.ok());
    for (size_t v = 0; v < 70; ++v)
        CHECK(close((*out)[v],
                    evaluate(c, std::span(xs.data() + v * c.numInputs(), c.numInputs()),
                             Semiring::SumProduct)
                        ->values[c.outputs[0]],
                    1e-9));
}

TEST_CASE("streamed and asynchronous evaluation (two streams, pinned buffers) match the reference",
          "[gpu][stream]") {
    // Two schedules: the circuit's own ops (-O0: grid and block segments) and -O3 with slot
    // reuse; counts that leave a partial last batch and need both slots several times.
    const Circuit c = testing::randomZddCircuit({.vars = 40, .width = 500, .roots = 2}, 12);
    for (bool scheduled : {false, true})
        for (Precision prec : {Precision::Float64, Precision::Float32}) {
            CudaOptions o;
            o.backward = false;
            o.batch = 64;
            o.narrowWork = 256;
            o.precision = prec;
            auto model = scheduled ? compileCuda(c, scheduleFor(c, 3, true, 64, 256), o)
                                   : compileCircuitForCuda(c, o, 0);
            REQUIRE(model.ok());
            const size_t count = 5 * 64 + 17;
            const auto xs = testing::randomInputs(count * c.numInputs(), 21, 0.3, 0.9);
            auto out = model->evaluateStreamed(xs, count);
            if (!out)
                FAIL(out.error().str());
            REQUIRE(out->size() == count * c.numOutputs());
            const double tol = prec == Precision::Float64 ? 1e-9 : 2e-4;
            int bad = 0;
            for (size_t v = 0; v < count; ++v) {
                auto ref = evaluate(c, std::span(xs.data() + v * c.numInputs(), c.numInputs()),
                                    Semiring::SumProduct);
                for (size_t k = 0; k < c.numOutputs(); ++k)
                    bad += !close((*out)[v * c.numOutputs() + k], ref->values[c.outputs[k]], tol);
            }
            CHECK(bad == 0);
            // Explicit submit/collect: both slots in flight at once; misuse is refused.
            const std::span<const double> first(xs.data(), 3 * c.numInputs());
            const std::span<const double> second(xs.data() + 3 * c.numInputs(), 2 * c.numInputs());
            REQUIRE(model->submit(0, first, 3).ok());
            REQUIRE(model->submit(1, second, 2).ok());
            CHECK(!model->submit(0, first, 3).ok()); // busy
            auto a = model->collect(0), b = model->collect(1);
            REQUIRE(a.ok());
            REQUIRE(b.ok());
            CHECK(!model->collect(1).ok()); // nothing in flight
            for (size_t v = 0; v < 5; ++v) {
                const double got =
                    v < 3 ? (*a)[v * c.numOutputs()] : (*b)[(v - 3) * c.numOutputs()];
                auto ref = evaluate(c, std::span(xs.data() + v * c.numInputs(), c.numInputs()),
                                    Semiring::SumProduct);
                CHECK(close(got, ref->values[c.outputs[0]], tol));
            }
        }
}

TEST_CASE("a batch enqueued on a caller's stream: several launches, forward and backward, "
          "every number type",
          "[gpu]") {
    auto device = openDevice(0);
    REQUIRE(device.ok());
    auto stream = (*device)->createStream();
    REQUIRE(stream.ok());
    auto onStream = [&](CudaModel &model, std::span<const double> xs, size_t count) -> Run {
        REQUIRE(model.poisonResults().ok());
        auto batch = model.enqueue(xs, count, 0, *stream);
        if (!batch)
            FAIL(batch.error().str());
        auto values = model.results(*batch);
        if (!values)
            FAIL(values.error().str());
        auto ready = batch->ready(); // its results taken: nothing left enqueued
        CHECK_FALSE(ready.ok());
        return {std::move(values->outputs), std::move(values->adjoints)};
    };
    for (const NumericCase &n : kNumerics)
        for (uint32_t batch : {1u, 33u}) {
            const Circuit c = testing::randomCircuit(
                {.inputs = 9, .ops = 300, .outputs = 3, .semiring = Semiring::SumProduct},
                5 + batch);
            CudaOptions o;
            o.precision = n.precision;
            o.logSpace = n.log;
            o.batch = batch;
            o.narrowWork = 64; // block and grid segments both
            o.singleLaunch = false;
            INFO((n.precision == Precision::Float64 ? "f64" : "f32")
                 << (n.log ? " log" : "") << " B=" << batch);
            checkAgainstReference(c, o, batch == 1 ? 3 : 2 * batch + 5, 91 + batch, n.tol,
                                  onStream);
        }
    (void)(*device)->destroyStream(*stream);
}
