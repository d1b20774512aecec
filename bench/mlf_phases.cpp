// Where a batched MLF answer's time goes on the GPU, per network: the kernels alone (forward, and
// forward+backward) on the passes' -O0 schedule (the circuit's own ops) and -O3 schedule (merged op
// types, justified levels; every value kept, as the backward pass needs), at B = 1 and at the
// runtime's batch; then the runtime's own calls over the whole batch of cases: Model::evaluate
// (copies in and out included), Model::adjoints, Model::forwardBackward of the evidence batch
// (parameters kept on the device) and runTasks' MAR (evidence in, marginals out).
// Per case, µs. The cases are Fast-BNI's workload (forward-sampled, 20% observed, seed 1); every
// compiled model is checked against the reference evaluator on the first cases before it is timed.
//
//   mlf_phases [--cases N] [--max-lanes L1,L2,...] NET.bif...
// --max-lanes: the runtime's most lanes a launch (DeviceOptions::cudaMaxLanes), each measured
// (the kernels at B = 1 once); default the runtime's own.
#include "backends/cuda/cuda_model.h"
#include "backends/cuda/schedule/gpu_passes.h"
#include "bench/circuit_cases.h"
#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/passes/pipeline.h"
#include "pipeline/load_model.h"
#include "runtime/cuda_circuit.h"
#include "runtime/engine.h"
#include "runtime/sample_evidence.h"
#include "runtime/tasks.h"
#include "support/gpu_settings.h"
#include "support/timer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

using namespace zbddc;
using namespace zbddc::cuda;

namespace {

constexpr int kReps = 10;

// The largest relative difference of the model's outputs from the reference on `count` vectors.
double checkAgainstReference(CudaModel &m, const Circuit &c, std::span<const double> xs,
                             size_t count) {
    const size_t n = m.plan().numInputs;
    auto got = m.evaluate(xs.first(count * n), count);
    if (!got)
        return INFINITY;
    double worst = 0;
    for (size_t k = 0; k < count; ++k) {
        auto want = evaluate(c, xs.subspan(k * n, n), Semiring::SumProduct);
        if (!want)
            return INFINITY;
        const double w = want->values[c.outputs[0]], g = (*got)[k];
        worst = std::max(worst, std::abs(g - w) / std::max(std::abs(w), 1e-300));
    }
    return worst;
}

// Kernel µs per case, forward and forward+backward, of one compiled model at its batch.
void kernelRow(const char *name, const char *how, Result<CudaModel> m, const Circuit &c,
               std::span<const double> xs, size_t cases) {
    if (!m) {
        std::printf("| %s | %s | failed: %s | | | | |\n", name, how, m.error().str().c_str());
        return;
    }
    const size_t B = m->shape().batch;
    const double err =
        checkAgainstReference(*m, c, xs, std::min<size_t>(B, std::min<size_t>(cases, 64)));
    auto fwd = m->timeForward(kReps);
    auto both = m->timeForwardBackward(kReps);
    // GB/s of the least traffic each pass must move (CudaModel::minimum*Bytes), against the
    // copy bandwidth bench/copy_bandwidth measures.
    const double fwdBytes = m->minimumForwardBytes(), bothBytes = fwdBytes + m->minimumBackwardBytes();
    std::printf("| %s | %s | %.2f | %.2f | %.0f | %.0f | %u levels, max rel. error %.1e |\n", name,
                how, fwd ? *fwd * 1e3 / B : NAN, both ? *both * 1e3 / B : NAN,
                fwd ? fwdBytes / (*fwd * 1e6) : NAN, both ? bothBytes / (*both * 1e6) : NAN,
                m->plan().numLevels(), err);
    std::fflush(stdout);
}

double perCaseMicros(size_t cases, const std::function<bool()> &run) {
    if (!run()) // warm-up: compiles what the call needs
        return NAN;
    const SteadyTime start = std::chrono::steady_clock::now();
    if (!run())
        return NAN;
    return msSince(start) * 1000 / static_cast<double>(cases);
}

// The runtime's calls over the whole batch, on a Model whose launches hold at most `maxLanes`.
void runtimeRows(const std::string &name, const Circuit &c, const std::vector<Evidence> &cases,
                 const InputBatch &batch, const std::vector<double> &xs, uint32_t maxLanes) {
    const size_t count = cases.size();
    DeviceOptions d;
    d.device = DeviceKind::Cuda;
    d.cudaMaxLanes = maxLanes;
    Model model = Model::fromCircuit(c, d);
    const uint32_t lanes = cudaLanesFor(c, count, 0, maxLanes);
    const double evalUs = perCaseMicros(count, [&] {
        return model.evaluate(Semiring::SumProduct, Numeric::Float64, xs, count).ok();
    });
    const double adjUs = perCaseMicros(count, [&] {
        return model.adjoints(Semiring::SumProduct, Numeric::Float64, xs, count, 0).ok();
    });
    // The evidence batch as runTasks passes it: the parameters kept on the device, the
    // indicators in and their adjoints back (checked against the whole vectors' adjoints).
    const double varyingUs = perCaseMicros(count, [&] {
        return model.forwardBackward(Semiring::SumProduct, Numeric::Float64, batch, 0).ok();
    });
    double varyingError = 0;
    auto whole = model.adjoints(Semiring::SumProduct, Numeric::Float64, xs, count, 0);
    auto varying = model.forwardBackward(Semiring::SumProduct, Numeric::Float64, batch, 0);
    if (whole && varying) {
        const std::vector<double> want = batch.varyingColumns(*whole);
        for (size_t i = 0; i < want.size(); ++i)
            varyingError = std::max(varyingError, std::fabs(varying->adjoints[i] - want[i]) /
                                                      std::max(std::fabs(want[i]), 1e-300));
    } else {
        varyingError = -1; // a pass failed: said in the row
    }
    const double marUs = perCaseMicros(count, [&] {
        const auto r = runTasks(model, Task::Mar, cases);
        return !r.empty() && r[0].ok();
    });
    std::printf("| %s | Model::evaluate / adjoints, %zu cases (copies included) | %.2f | %.2f "
                "| | | %u lanes a launch |\n",
                name.c_str(), count, evalUs, adjUs, lanes);
    std::printf("| %s | Model::forwardBackward of the evidence batch, %zu cases (parameters "
                "kept on the device, %zu indicators moved) | | %.2f | | | max rel. error of "
                "the indicators' adjoints %.1e |\n",
                name.c_str(), count, batch.varying.size(), varyingUs, varyingError);
    std::printf("| %s | runTasks MAR, %zu cases (evidence in, marginals out) | | %.2f | | | |\n",
                name.c_str(), count, marUs);
    std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv) {
    zbddc::gpuSettings = zbddc::gpuSettingsFromVariables(std::getenv); // docs/cli.md
    size_t count = 2000;
    std::vector<uint32_t> maxLanes;
    std::vector<std::string> networks;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--cases" && i + 1 < argc)
            count = std::stoul(argv[++i]);
        else if (arg == "--max-lanes" && i + 1 < argc) {
            std::istringstream list(argv[++i]);
            for (std::string l; std::getline(list, l, ',');)
                maxLanes.push_back(static_cast<uint32_t>(std::stoul(l)));
        } else
            networks.push_back(arg);
    }
    if (maxLanes.empty())
        maxLanes.push_back(kMaxCudaLanes);
    if (Status st = cudaAvailable(); !st) {
        std::fprintf(stderr, "skipped: %s\n", st.error().message.c_str());
        return 0;
    }
    std::printf("| network | what | forward µs/case | forward+backward (MAR) µs/case | forward "
                "GB/s | forward+backward GB/s | note |\n");
    std::printf("|---|---|---:|---:|---:|---:|---|\n");
    for (const std::string &path : networks) {
        const std::string name = std::filesystem::path(path).stem().string();
        auto net = readNetworkFile(path);
        auto circuit = loadCircuit(path);
        if (!net || !circuit) {
            std::fprintf(stderr, "%s: %s\n", path.c_str(),
                         (!net ? net.error() : circuit.error()).str().c_str());
            continue;
        }
        const Circuit &c = *circuit;
        const std::vector<Evidence> cases =
            bench::casesForCircuit(sampleEvidence(*net, count, 0.2, 1), *net, c);
        const ModelInterface face = interfaceOf(c);
        auto batch = evidenceBatch(face);
        if (!batch)
            return 1;
        for (const Evidence &e : cases)
            addEvidence(face, e, *batch);
        const std::vector<double> xs = batch->dense();
        std::vector<uint32_t> kernelLanes{1};
        for (uint32_t most : maxLanes)
            kernelLanes.push_back(cudaLanesFor(c, count, 0, most));
        for (uint32_t B : kernelLanes) {
            CudaOptions o;
            o.batch = B;
            o.backward = true;
            const std::string at = "B=" + std::to_string(B);
            for (int level : {0, 3})
                kernelRow(name.c_str(),
                          ("kernels, -O" + std::to_string(level) + " schedule, " + at).c_str(),
                          compileCircuitForCuda(c, o, level), c, xs, count);
            // -O3 with shared-memory tiles: what the preload pass buys at these lanes.
            auto tiled = buildSchedule(
                c, cudaPipelineOptions(3, B, o.blockThreads, o.narrowWork, true, true));
            if (tiled)
                kernelRow(name.c_str(), ("kernels, -O3 schedule with preload, " + at).c_str(),
                          compileCuda(c, *tiled, o), c, xs, count);
        }
        for (uint32_t most : maxLanes)
            runtimeRows(name, c, cases, *batch, xs, most);
    }
    return 0;
}
