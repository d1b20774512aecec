// GPU evaluation benchmarks (bench/results/NOTEBOOK.md, "CUDA backend"): latency mode (B = 1)
// time per evaluation and µs per level against the measured barrier floors; throughput mode
// evaluations/s and achieved bandwidth against a measured device-to-device copy; forward+backward;
// the reference evaluator on one CPU thread side by side. Circuits are random ZBDD-shaped MLFs
// (tests/support/random_circuits.h). Every timed configuration is first checked against the
// reference evaluator on its first vectors.
#include "backends/cuda/cuda_model.h"
#include "bench/harness.h"
#include "ir/interpret.h"
#include "ir/levels.h"
#include "runtime/cuda_circuit.h"
#include "tests/support/random_circuits.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace zbddc;
using namespace zbddc::cuda;

namespace {

constexpr int kReps = 20;
double gCopyGBs = 0; // measured device-to-device copy, read + write

bool needGpu(bench::Context &ctx) {
    Status st = cudaAvailable();
    if (!st) {
        std::fprintf(stderr, "skipped: %s\n", st.error().message.c_str());
        ctx.record("skipped (no GPU)", 1);
        return false;
    }
    return true;
}

void deviceCopy(bench::Context &ctx) {
    if (!needGpu(ctx))
        return;
    Device *d = *Device::open(0);
    const size_t bytes = size_t{2} << 30;
    auto a = d->allocate(bytes), b = d->allocate(bytes);
    if (!a || !b)
        return;
    (void)d->fill(a->ptr(), 1, bytes);
    std::vector<double> ms;
    for (int r = 0; r < 10; ++r)
        ms.push_back(*d->time(nullptr, [&] { return d->copy(b->ptr(), a->ptr(), bytes); }));
    std::sort(ms.begin(), ms.end());
    gCopyGBs = 2.0 * bytes / (ms[ms.size() / 2] * 1e-3) / 1e9;
    ctx.record("device-to-device copy, 2 GiB (read+write)", gCopyGBs, "GB/s");
    ctx.record("device", d->info().multiprocessors, d->info().name + " SMs");
}

// Largest relative error of the model's outputs over the reference's, on `count` vectors.
double checkOutputs(CudaModel &m, const Circuit &c, size_t count, bool log) {
    const auto xs = testing::randomInputs(count * c.numInputs(), 99, 0.3, 0.9);
    if (!m.poisonResults().ok())
        return INFINITY;
    auto out = m.evaluate(xs, count);
    if (!out)
        return INFINITY;
    double worst = 0;
    for (size_t v = 0; v < count; ++v) {
        auto ref = evaluate(c, std::span(xs.data() + v * c.numInputs(), c.numInputs()),
                            Semiring::SumProduct, log ? Numeric::Log : Numeric::Float64);
        for (size_t k = 0; k < c.numOutputs(); ++k) {
            const double want = ref->values[c.outputs[k]], got = (*out)[v * c.numOutputs() + k];
            const double err = std::fabs(got - want) / std::max(1e-300, std::fabs(want));
            worst = std::isnan(err) ? INFINITY : std::max(worst, err);
        }
    }
    return worst;
}

// Writes the circuit as levelled ops (every value in its own slot: x[i] in slot i, constants
// after them, then the ops in (ASAP level, kind) order), 4 input vectors and the reference
// evaluator's outputs for them, for the PyTorch peer (bench/peers/torch_levels.py), into
// $ZBDDC_PEER_DIR/<name>/ when that variable is set.
void exportForPeer(const Circuit &c, const std::string &name) {
    const char *root = std::getenv("ZBDDC_PEER_DIR");
    if (!root || !*root)
        return;
    const std::filesystem::path dir = std::filesystem::path(root) / name;
    std::filesystem::create_directories(dir);
    auto write = [&](const char *file, const auto &v) {
        std::ofstream out(dir / file, std::ios::binary);
        out.write(reinterpret_cast<const char *>(v.data()), v.size() * sizeof(v[0]));
    };
    const SemiringOps ring{c.semiring};
    const std::vector<uint32_t> level = asapLevels(c);
    auto kindOf = [&](NodeId id) {
        return c.kind[id] == OpKind::Plus ? 0u : c.kind[id] == OpKind::Times ? 1u : 2u;
    };
    std::vector<uint32_t> slot(c.numNodes(), 0);
    std::vector<double> constants;
    std::vector<NodeId> ops;
    uint32_t levels = 0;
    for (NodeId id = 0; id < c.numNodes(); ++id) {
        if (c.kind[id] == OpKind::Input) {
            slot[id] = c.a[id];
        } else if (!isOp(c.kind[id])) {
            slot[id] = static_cast<uint32_t>(c.numInputs() + constants.size());
            constants.push_back(c.kind[id] == OpKind::Zero  ? ring.zero()
                                : c.kind[id] == OpKind::One ? ring.one()
                                                            : c.constants[c.a[id]]);
        } else {
            ops.push_back(id);
            levels = std::max(levels, level[id]);
        }
    }
    std::stable_sort(ops.begin(), ops.end(), [&](NodeId x, NodeId y) {
        return std::pair(level[x], kindOf(x)) < std::pair(level[y], kindOf(y));
    });
    const uint32_t firstOp = static_cast<uint32_t>(c.numInputs() + constants.size());
    for (size_t k = 0; k < ops.size(); ++k)
        slot[ops[k]] = firstOp + static_cast<uint32_t>(k);
    // The peer's format: per op dst, a, b, c (c only for MulAdd), and per (level, kind) op ranges.
    std::vector<uint32_t> dst, a, b, cc, start{0};
    for (NodeId id : ops) {
        dst.push_back(slot[id]);
        a.push_back(slot[c.a[id]]);
        b.push_back(slot[c.b[id]]);
        cc.push_back(c.kind[id] == OpKind::MulAdd ? slot[c.c[id]] : 0);
    }
    for (uint32_t L = 1; L <= levels; ++L)
        for (uint32_t t = 0; t < 3; ++t)
            start.push_back(static_cast<uint32_t>(
                std::find_if(
                    ops.begin(), ops.end(),
                    [&](NodeId id) { return std::pair(level[id], kindOf(id)) > std::pair(L, t); }) -
                ops.begin()));
    write("opDst.bin", dst);
    write("opA.bin", a);
    write("opB.bin", b);
    write("opC.bin", cc);
    write("groupStart.bin", start);
    write("constants.bin", constants);
    const size_t count = 4;
    const auto xs = testing::randomInputs(count * c.numInputs(), 123, 0.3, 0.9);
    std::vector<double> ref(count);
    for (size_t v = 0; v < count; ++v)
        ref[v] = evaluate(c, std::span(xs.data() + v * c.numInputs(), c.numInputs()),
                          Semiring::SumProduct)
                     ->values[c.outputs[0]];
    write("x.bin", xs);
    write("ref.bin", ref);
    std::ofstream(dir / "meta.json")
        << "{\"numSlots\": " << firstOp + ops.size() << ", \"numInputs\": " << c.numInputs()
        << ", \"numConstants\": " << constants.size() << ", \"numLevels\": " << levels
        << ", \"outSlot\": " << slot[c.outputs[0]] << ", \"count\": " << count << "}\n";
}

void latencyFloor(bench::Context &ctx) {
    if (!needGpu(ctx))
        return;
    // 2000 levels of 2 ops: the time per level is the synchronisation cost itself.
    const Circuit c = testing::randomZddCircuit({.vars = 2000, .width = 2}, 1);
    for (auto [name, narrow, full] : {std::tuple{"one block, __syncthreads", 0xffffffffu, false},
                                      {"grid of 1 block, grid barrier", 0u, false},
                                      {"full grid, grid barrier", 0u, true}}) {
        CudaOptions o;
        o.narrowWork = narrow;
        o.fullGrid = full;
        auto m = compileCircuitForCuda(c, o);
        if (!m) {
            std::fprintf(stderr, "%s\n", m.error().str().c_str());
            continue;
        }
        const double err = checkOutputs(*m, c, 1, false);
        auto ms = m->timeForward(kReps);
        if (!ms || err > 1e-9) {
            std::fprintf(stderr, "latency floor %s: failed (err %g)\n", name, err);
            continue;
        }
        ctx.record(std::string("µs/level, ") + name, *ms * 1e3 / m->plan().numLevels(), "µs");
    }
}

void zddCircuit(bench::Context &ctx, uint32_t vars, uint32_t width) {
    if (!needGpu(ctx))
        return;
    const Circuit c = testing::randomZddCircuit({.vars = vars, .width = width}, 7);
    ctx.record("nodes", double(c.numNodes()));
    exportForPeer(c, "zdd-" + std::to_string(vars) + "x" + std::to_string(width));

    // The reference evaluator, one CPU thread, one vector.
    const auto x = testing::randomInputs(c.numInputs(), 5, 0.3, 0.9);
    const auto t0 = std::chrono::steady_clock::now();
    int cpuRuns = 0;
    do {
        (void)evaluate(c, x, Semiring::SumProduct);
        ++cpuRuns;
    } while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(300));
    const double cpuMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
        cpuRuns;
    ctx.record("reference evaluator (1 CPU thread), forward", cpuMs, "ms");

    { // latency mode
        CudaOptions o;
        auto m = compileCircuitForCuda(c, o);
        if (!m) {
            std::fprintf(stderr, "%s\n", m.error().str().c_str());
            return;
        }
        ctx.record("levels", m->plan().numLevels());
        ctx.record("B=1 launch segments", double(m->forwardSegments().size()));
        const double err = checkOutputs(*m, c, 2, false);
        ctx.record("B=1 max relative error vs reference", err);
        auto fwd = m->timeForward(kReps);
        auto both = m->timeForwardBackward(kReps);
        if (fwd && both) {
            ctx.record("B=1 forward", *fwd * 1e3, "µs");
            ctx.record("B=1 forward µs/level", *fwd * 1e3 / m->plan().numLevels(), "µs");
            ctx.record("B=1 forward+backward", *both * 1e3, "µs");
            ctx.record("B=1 speed-up over reference", cpuMs / *fwd, "x");
        }
    }
    // The passes' -O3 schedule (merged types, justified levels): latency with every value kept,
    // throughput with slot reuse.
    for (bool reuse : {false, true}) {
        if (c.numNodes() > 1'000'000) // the passes take a while on 4M nodes; keep the run short
            break;
        CudaOptions o;
        o.batch = reuse ? 1024 : 1;
        o.backward = !reuse;
        auto sched = cudaSchedule(c, o, 3);
        if (!sched) {
            std::fprintf(stderr, "schedule: %s\n", sched.error().str().c_str());
            break;
        }
        auto m = compileCuda(c, *sched, o);
        if (!m) {
            std::fprintf(stderr, "schedule model: %s\n", m.error().str().c_str());
            break;
        }
        const std::string b = reuse ? "-O3 schedule B=1024 " : "-O3 schedule B=1 ";
        const double err = checkOutputs(*m, c, reuse ? 64 : 2, false);
        ctx.record(b + "max relative error vs reference", err);
        if (!reuse) {
            ctx.record("-O3 schedule: levels", m->plan().numLevels());
            ctx.record("-O3 schedule: merged ops", m->plan().numOps());
            ctx.record("-O3 schedule: op types", double(m->plan().typeCode.size()));
        }
        auto fwd = m->timeForward(kReps);
        if (!fwd || err > 1e-9)
            continue;
        ctx.record(b + "forward", *fwd * 1e3, "µs");
        if (reuse)
            ctx.record(b + "evaluations/s", o.batch / (*fwd * 1e-3), "1/s");
        else if (auto both = m->timeForwardBackward(kReps))
            ctx.record(b + "forward+backward", *both * 1e3, "µs");
    }
    for (uint32_t B : {64u, 1024u, 16384u}) {
        CudaOptions o;
        o.batch = B;
        o.backward = false; // forward-only: liveness reuses slots
        auto m = compileCircuitForCuda(c, o);
        if (!m) {
            std::fprintf(stderr, "B=%u: %s\n", B, m.error().str().c_str());
            continue;
        }
        const std::string b = "B=" + std::to_string(B) + " ";
        const double err = checkOutputs(*m, c, std::min<uint32_t>(B, 64), false);
        if (err > 1e-9) {
            ctx.record(b + "FAILED check, max relative error", err);
            continue;
        }
        auto fwd = m->timeForward(kReps);
        if (!fwd)
            continue;
        const double gbs = m->minimumForwardBytes() / (*fwd * 1e-3) / 1e9;
        ctx.record(b + "forward", *fwd * 1e3, "µs");
        ctx.record(b + "evaluations/s", B / (*fwd * 1e-3), "1/s");
        ctx.record(b + "bandwidth on minimum bytes (write+read each value)", gbs, "GB/s");
        if (gCopyGBs > 0)
            ctx.record(b + "of copy bandwidth", 100 * gbs / gCopyGBs, "%");
        ctx.record(b + "operand traffic served (L2+DRAM)", m->operandBytes() / (*fwd * 1e-3) / 1e9,
                   "GB/s");
        ctx.record(b + "speed-up over reference", cpuMs * B / *fwd, "x");
        ctx.record(b + "slots (with reuse)", m->plan().numSlots);
    }
    { // end-to-end batches with transfers: synchronous evaluate() against evaluateStreamed()
        // (two streams, pinned buffers, copies overlapping kernels), host wall clock
        CudaOptions o;
        o.batch = 1024;
        o.backward = false;
        auto m = compileCircuitForCuda(c, o);
        const size_t count = 16 * o.batch;
        if (m && c.numNodes() <= 1'000'000) {
            const auto xs = testing::randomInputs(count * c.numInputs(), 31, 0.3, 0.9);
            auto wall = [&](bool streamed) -> double {
                double best = INFINITY;
                for (int r = 0; r < 3; ++r) {
                    const auto t0 = std::chrono::steady_clock::now();
                    auto out = streamed ? m->evaluateStreamed(xs, count) : m->evaluate(xs, count);
                    const double s =
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                            .count();
                    if (!out)
                        return INFINITY;
                    if (r == 0) { // spot-check the last batch against the reference
                        const size_t v = count - 1;
                        auto ref =
                            evaluate(c, std::span(xs.data() + v * c.numInputs(), c.numInputs()),
                                     Semiring::SumProduct);
                        const double want = ref->values[c.outputs[0]];
                        if (!(std::fabs((*out)[v * c.numOutputs()] - want) <=
                              1e-9 * std::fabs(want)))
                            return INFINITY;
                    }
                    best = std::min(best, s);
                }
                return best;
            };
            const double sync = wall(false), streamed = wall(true);
            ctx.record("16 batches of 1024 with transfers, evaluate(), eval/s", count / sync,
                       "1/s");
            ctx.record("16 batches of 1024 with transfers, evaluateStreamed(), eval/s",
                       count / streamed, "1/s");
        }
    }
    { // throughput forward+backward (every value kept)
        CudaOptions o;
        o.batch = 1024;
        const double need = 2.0 * double(c.numNodes()) * o.batch * 8;
        if (need < 40e9) {
            auto m = compileCircuitForCuda(c, o);
            if (m) {
                auto both = m->timeForwardBackward(kReps);
                if (both)
                    ctx.record("B=1024 forward+backward, per vector", *both * 1e3 / 1024, "µs");
            }
        }
    }
    { // float32 and log space, latency and B=1024
        for (bool log : {false, true}) {
            CudaOptions o;
            o.precision = Precision::Float32;
            o.logSpace = log;
            o.batch = 1024;
            o.backward = false;
            auto m = compileCircuitForCuda(c, o);
            if (!m)
                continue;
            const double err = checkOutputs(*m, c, 16, log);
            auto fwd = m->timeForward(kReps);
            if (fwd) {
                const std::string n = log ? "B=1024 log-float32 " : "B=1024 float32 ";
                ctx.record(n + "forward", *fwd * 1e3, "µs");
                ctx.record(n + "max relative error vs reference", err);
            }
        }
    }
}

} // namespace

ZBDDC_BENCHMARK("gpu 0 copy", deviceCopy);
ZBDDC_BENCHMARK("gpu 1 latency floor", latencyFloor);
ZBDDC_BENCHMARK("gpu zdd 200x1000", [](bench::Context &ctx) { zddCircuit(ctx, 200, 1000); });
ZBDDC_BENCHMARK("gpu zdd 2000x50", [](bench::Context &ctx) { zddCircuit(ctx, 2000, 50); });
ZBDDC_BENCHMARK("gpu zdd 1000x4000", [](bench::Context &ctx) { zddCircuit(ctx, 1000, 4000); });
