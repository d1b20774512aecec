// A knowledge compiler's circuit with B literal-weight vectors (the neurosymbolic batch: one
// circuit, B weightings), as KLay (Maene et al. 2025) times its NeSy circuits: per circuit, the
// compile time (file read, smoothed and lowered; then the backend compiled for the batch) and
// the best warm time of a forward pass and of a forward+backward pass (the gradient by every
// literal weight) at each batch size. On the GPU each batch runs with each kernel plan asked for
// (--kernels: `single`, one launch per pass, backends/cuda/single_launch.h; `levels`, the level
// kernels; `auto`, the backend's choice), and every plan's values and gradients after the first
// are checked against the first's (the largest relative difference is printed). With --weights
// host,device each GPU plan is timed twice: the weights in host memory, copied in (and their log
// taken on the host in log space) and the results copied out by every pass; and the weights put
// in device memory once, each pass writing its results to device memory (Model::passOnDevice, as
// a PyTorch user's tensors stay on the GPU), timed as KLay's are: the wall time of a pass and
// the wait for it. A device row's difference is from the host pass of its own plan. One case in
// float64 runs its end levels on the host (DeviceOptions::hostLevelOps), which has no pass over
// device memory; its device row runs every level on the GPU, as zbddc.Circuit from Python does.
// A cold compile needs an empty ZBDDC_CACHE_DIR and CUDA_CACHE_DISABLE=1: NVRTC (CUDA 12.9 and
// later) keeps its own cache in the driver's compute cache.
//
//   circuit_batches [--device cpu|cuda] [--batches 1,128,1024] [--reps N] [--numeric float64|log]
//                   [--kernels single,levels] [--weights host,device] [--json FILE]
//                   CIRCUIT.sdd|CIRCUIT.nnf...
#include "bench/best_of.h"
#include "bench/comma_list.h"
#include "compiler/frontends/circuits/circuit_load.h"
#include "compiler/frontends/circuits/literal_weights.h"
#include "ir/circuit_stats.h"
#include "runtime/model.h"
#include "support/gpu_settings.h"
#include "support/timer.h"
#include "tests/support/random_literal_weights.h"

#ifdef ZBDDC_HAVE_CUDA_BACKEND
#include "backends/cuda/driver.h"
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

using namespace zbddc;

namespace {

struct Row {
    std::string circuit;
    size_t ops = 0;
    double loadMs = 0;
    uint32_t batch = 0;
    std::string kernels;
    std::string types = "compiled"; // the GPU kernels' op types: compiled, interpreted or tiered
    std::string weights = "host";   // where the weights are: host memory, or device memory
    // To the first kernels (prepare), and to the final ones (settle: tiered's compiled module).
    double prepareMs = 0, settledMs = 0, forwardMs = 0, backwardMs = 0;
    // Largest relative difference from the batch's first plan (a device row: from its host row)
    double differs = 0;
};

// The launch plan each name asks the GPU backend for (support/gpu_settings.h).
std::optional<bool> singleLaunchFor(const std::string &kernels) {
    if (kernels == "single")
        return true;
    if (kernels == "levels")
        return false;
    return std::nullopt;
}

// The op types each name asks the GPU backend for (support/gpu_settings.h).
OpTypeKernels opTypesFor(const std::string &types) {
    if (types == "interpreted")
        return OpTypeKernels::Interpreted;
    if (types == "tiered")
        return OpTypeKernels::InterpretedUntilCompiled;
    return OpTypeKernels::Compiled;
}

double largestRelativeDifference(const std::vector<double> &a, const std::vector<double> &b) {
    if (a.size() != b.size())
        return INFINITY;
    double most = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i] == b[i]) // equal infinities (a log-space zero) included
            continue;
        most = std::max(most, std::abs(a[i] - b[i]) / std::max(1e-300, std::abs(b[i])));
    }
    return most;
}

int fail(const std::string &what) {
    std::fprintf(stderr, "circuit_batches: %s\n", what.c_str());
    return 1;
}

// The weights of `batch` put in device memory once, then warm passes writing their results to
// device memory, each waited for; the results copied back once to compare with the host pass's.
// `host` holds that pass's values and `hostGradient` its gradient. nullopt where the model has no
// such pass (one case in float64 runs its host phases on the CPU: runtime/model.h).
Result<std::optional<Row>> timeOnDevice(Model &model, Numeric numeric, const InputBatch &batch,
                                        int reps, const std::vector<double> &host,
                                        const std::vector<double> &hostGradient, Row r) {
#ifdef ZBDDC_HAVE_CUDA_BACKEND
    auto device = cuda::openDevice(0);
    if (!device)
        return device.error();
    cuda::Device &d = **device;
    const size_t outs = model.numOutputs(), m = batch.varying.size();
    auto weights = cuda::uploadArray(d, batch.values);
    auto outputs = d.allocate(std::max<size_t>(batch.count * outs, 1) * sizeof(double));
    auto adjoints = d.allocate(std::max<size_t>(batch.count * m, 1) * sizeof(double));
    if (!weights || !outputs || !adjoints)
        return error("no device memory for the batch");
    DeviceInputBatch onDevice{batch.shared, batch.varying,  weights->ptr(),
                              batch.count,  outputs->ptr(), adjoints->ptr()};
    bool ok = true, has = true;
    auto pass = [&](std::optional<size_t> adjointsOf) {
        auto ran = model.passOnDevice(Semiring::SumProduct, numeric, onDevice, adjointsOf);
        has = has && ran.has_value();
        ok = ok && ran && ran->ok();
    };
    r.weights = "device";
    r.forwardMs = bench::bestMs(reps, [&] { pass(std::nullopt); });
    std::vector<double> values(batch.count * outs), gradient(batch.count * m);
    if (ok && !values.empty())
        ok = d.download(values.data(), outputs->ptr(), values.size() * sizeof(double)).ok();
    r.backwardMs = bench::bestMs(reps, [&] { pass(0); });
    if (ok && !gradient.empty())
        ok = d.download(gradient.data(), adjoints->ptr(), gradient.size() * sizeof(double)).ok();
    if (!has)
        return std::optional<Row>();
    if (!ok)
        return error("a pass on device memory failed");
    r.differs = std::max(largestRelativeDifference(values, host),
                         largestRelativeDifference(gradient, hostGradient));
    return std::optional<Row>(r);
#else
    (void)model, (void)numeric, (void)batch, (void)reps, (void)host, (void)hostGradient, (void)r;
    return error("this build has no CUDA backend");
#endif
}

void printRow(const Row &r) {
    std::printf("%-12s %8zu %9.2f %6u %-7s %-11s %-7s %11.2f %11.2f %11.4f %11.4f %9.1e\n",
                r.circuit.c_str(), r.ops, r.loadMs, r.batch, r.kernels.c_str(), r.types.c_str(),
                r.weights.c_str(), r.prepareMs, r.settledMs, r.forwardMs, r.backwardMs, r.differs);
}

} // namespace

int main(int argc, char **argv) {
    zbddc::gpuSettings = zbddc::gpuSettingsFromVariables(std::getenv); // docs/cli.md
    std::string device = "cpu", json, numericName = "float64";
    std::vector<uint32_t> batches = {1, 128, 1024};
    std::vector<std::string> kernelPlans = {"single", "levels"};
    std::vector<std::string> weightPlaces = {"host"};
    std::vector<std::string> typePlans = {"compiled"};
    int reps = 10;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool more = i + 1 < argc;
        if (a == "--device" && more)
            device = argv[++i];
        else if (a == "--batches" && more) {
            batches.clear();
            for (const std::string &b : bench::commaList(argv[++i]))
                batches.push_back(static_cast<uint32_t>(std::stoul(b)));
        } else if (a == "--reps" && more)
            reps = std::stoi(argv[++i]);
        else if (a == "--kernels" && more)
            kernelPlans = bench::commaList(argv[++i]);
        else if (a == "--types" && more)
            typePlans = bench::commaList(argv[++i]);
        else if (a == "--weights" && more)
            weightPlaces = bench::commaList(argv[++i]);
        else if (a == "--numeric" && more)
            numericName = argv[++i];
        else if (a == "--json" && more)
            json = argv[++i];
        else if (!a.empty() && a[0] == '-')
            return fail("unknown option '" + a + "'");
        else
            files.push_back(a);
    }
    if (files.empty())
        return fail("usage: circuit_batches [--device cpu|cuda] [--batches 1,128,1024] [--reps N] "
                    "[--numeric float64|log] [--kernels single,levels] "
                    "[--types compiled,interpreted,tiered] [--weights host,device] "
                    "[--json FILE] CIRCUIT...");
    const Numeric numeric = numericName == "log" ? Numeric::Log : Numeric::Float64;
    DeviceOptions options;
    options.device = device == "cuda" ? DeviceKind::Cuda : DeviceKind::Cpu;
    for (const std::string &k : kernelPlans)
        if (k != "single" && k != "levels" && k != "auto")
            return fail("--kernels takes single, levels and auto, not '" + k + "'");
    for (const std::string &t : typePlans)
        if (t != "tiered" && t != "compiled" && t != "interpreted")
            return fail("--types takes compiled, interpreted and tiered, not '" + t + "'");
    for (const std::string &w : weightPlaces)
        if (w != "host" && w != "device")
            return fail("--weights takes host and device, not '" + w + "'");
    const bool onDevice =
        std::find(weightPlaces.begin(), weightPlaces.end(), "device") != weightPlaces.end();
    if (onDevice && options.device != DeviceKind::Cuda)
        return fail("--weights device needs --device cuda");
    if (options.device != DeviceKind::Cuda || kernelPlans.empty())
        kernelPlans = {"auto"}; // the CPU has one plan
    if (options.device != DeviceKind::Cuda || typePlans.empty())
        typePlans = {"compiled"};
    std::mt19937 rng(1);
    std::vector<Row> rows;
    std::printf("%-12s %8s %9s %6s %-7s %-11s %-7s %11s %11s %11s %11s %9s   (%s, %s)\n", "circuit",
                "ops", "load ms", "batch", "kernels", "types", "weights", "compile ms",
                "settled ms", "forward ms", "fwd+bwd ms", "differs", device.c_str(),
                numericName.c_str());
    for (const std::string &path : files) {
        const SteadyTime start = std::chrono::steady_clock::now();
        auto circuit = loadLogicCircuit(path);
        const double loadMs = msSince(start);
        if (!circuit)
            return fail(circuit.error().str());
        const size_t ops = circuitStats(*circuit).ops;
        const uint32_t n = literalVariableCount(*circuit);
        std::string name = path.substr(path.find_last_of('/') + 1);
        name = name.substr(0, name.find('.'));
        for (uint32_t b : batches) {
            const std::vector<LiteralWeights> cases = testing::randomLiteralWeights(n, b, rng);
            const InputBatch batch = literalWeightBatch(*circuit, cases);
            std::vector<double> firstValues, firstGradient;
            for (const std::string &kernels : kernelPlans)
                for (const std::string &types : typePlans) {
                    gpuSettings.singleLaunch = singleLaunchFor(kernels);
                    gpuSettings.opTypes = opTypesFor(types);
                    // A fresh model per batch size and plan: its compile is timed for that engine.
                    Model model = Model::fromCircuit(*circuit, options);
                    if (options.device == DeviceKind::Cuda && model.device() != DeviceKind::Cuda)
                        return fail("no usable GPU: " + model.fallbackNote());
                    Row r{name, ops, loadMs, b, kernels, types};
                    const SteadyTime compile = std::chrono::steady_clock::now();
                    if (Status s = model.prepare(Semiring::SumProduct, numeric, b); !s)
                        return fail(s.error().str());
                    r.prepareMs = msSince(compile);
                    if (Status s = model.settle(Semiring::SumProduct, numeric, b); !s)
                        return fail(s.error().str());
                    r.settledMs = msSince(compile);
                    bool ok = true;
                    r.forwardMs = bench::bestMs(reps, [&] {
                        ok = ok && model.evaluate(Semiring::SumProduct, numeric, batch).ok();
                    });
                    r.backwardMs = bench::bestMs(reps, [&] {
                        ok = ok &&
                             model.forwardBackward(Semiring::SumProduct, numeric, batch, 0).ok();
                    });
                    if (!ok)
                        return fail(name + ": a pass failed");
                    // The answers of this plan, against the first plan's.
                    auto values = model.evaluate(Semiring::SumProduct, numeric, batch);
                    auto pass = model.forwardBackward(Semiring::SumProduct, numeric, batch, 0);
                    if (!values || !pass)
                        return fail(name + ": a pass failed");
                    if (firstValues.empty()) {
                        firstValues = *values;
                        firstGradient = pass->adjoints;
                    } else {
                        r.differs =
                            std::max(largestRelativeDifference(*values, firstValues),
                                     largestRelativeDifference(pass->adjoints, firstGradient));
                    }
                    printRow(r);
                    rows.push_back(r);
                    if (onDevice) {
                        auto resident =
                            timeOnDevice(model, numeric, batch, reps, *values, pass->adjoints, r);
                        if (resident && !*resident) {
                            // One case in float64 runs its first and last levels on the host, which
                            // has no pass over device memory: the device row then runs every level
                            // on the GPU, as zbddc.Circuit does (python/circuit_handle.cpp).
                            DeviceOptions wholeOnGpu = options;
                            wholeOnGpu.hostLevelOps = 0;
                            Model whole = Model::fromCircuit(*circuit, wholeOnGpu);
                            if (Status s = whole.prepare(Semiring::SumProduct, numeric, b); !s)
                                return fail(s.error().str());
                            resident = timeOnDevice(whole, numeric, batch, reps, *values,
                                                    pass->adjoints, r);
                        }
                        if (!resident)
                            return fail(name + ": " + resident.error().str());
                        if (*resident) {
                            printRow(**resident);
                            rows.push_back(**resident);
                        } else {
                            std::fprintf(stderr,
                                         "circuit_batches: %s at B=%u: no pass on device "
                                         "memory (the model runs part of it on the host)\n",
                                         name.c_str(), b);
                        }
                    }
                }
        }
    }
    if (!json.empty()) {
        std::ofstream out(json);
        out << "[";
        for (size_t i = 0; i < rows.size(); ++i) {
            const Row &r = rows[i];
            out << (i ? ",\n " : "") << "{\"circuit\":\"" << r.circuit << "\",\"ops\":" << r.ops
                << ",\"load_ms\":" << r.loadMs << ",\"batch\":" << r.batch << ",\"kernels\":\""
                << r.kernels << "\",\"types\":\"" << r.types << "\",\"weights\":\"" << r.weights
                << "\",\"differs\":" << r.differs << ",\"compile_ms\":" << r.prepareMs
                << ",\"settled_ms\":" << r.settledMs << ",\"forward_ms\":" << r.forwardMs
                << ",\"forward_backward_ms\":" << r.backwardMs << ",\"device\":\"" << device
                << "\",\"numeric\":\"" << numericName << "\"}";
        }
        out << "]\n";
    }
    return 0;
}
