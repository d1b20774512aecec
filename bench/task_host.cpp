// runTasks' own work around its pass: per network, a batch of forward-sampled cases (20%
// observed, seed 1) answered by runTasks' MAR; the pass it runs, alone (Model::forwardBackward
// over the same evidence batch); and the rest alone: beginBatch and finishBatch
// (runtime/task_batch.h) given that pass's values, computed once beforehand — the host's part of
// an answer on any device (evidence in, marginals and results out), of which building the
// evidence batch (evidenceBatch, addEvidence) is a part. µs per case, the best of R runs after a
// warm-up run (the warm-up compiles).
//
//   task_host [--cases B] [--reps R] [--device cpu|cuda|reference] [--max-lanes L] NET.bif...
#include "bench/best_of.h"
#include "bench/circuit_cases.h"
#include "runtime/task_batch.h"
#include "support/gpu_settings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>

using namespace zbddc;

int main(int argc, char **argv) {
    zbddc::gpuSettings = zbddc::gpuSettingsFromVariables(std::getenv); // docs/cli.md
    size_t count = 2000;
    int reps = 5;
    DeviceKind device = DeviceKind::Cpu;
    uint32_t maxLanes = 0; // the runtime's default
    std::vector<std::string> networks;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--cases" && i + 1 < argc)
            count = std::stoul(argv[++i]);
        else if (arg == "--reps" && i + 1 < argc)
            reps = std::stoi(argv[++i]);
        else if (arg == "--max-lanes" && i + 1 < argc)
            maxLanes = static_cast<uint32_t>(std::stoul(argv[++i]));
        else if (arg == "--device" && i + 1 < argc && parseDeviceKind(argv[i + 1]))
            device = *parseDeviceKind(argv[++i]);
        else
            networks.push_back(arg);
    }
    std::printf("| network | inputs | indicators | cases | device | runTasks MAR µs | its pass µs | "
                "the rest µs | of which the evidence batch µs |\n"
                "|---|---:|---:|---:|---|---:|---:|---:|---:|\n");
    for (const std::string &path : networks) {
        const auto sampled = bench::sampleNetwork(path, count);
        if (!sampled)
            continue;
        const std::vector<Evidence> &cases = sampled->circuitCases;
        DeviceOptions options;
        options.device = device;
        options.cudaMaxLanes = maxLanes;
        Model model = Model::fromCircuit(sampled->circuit, options);
        const ModelInterface &face = model.interface();
        auto makeBatch = [&] {
            auto batch = evidenceBatch(face);
            batch->values.reserve(cases.size() * batch->varying.size());
            for (const Evidence &e : cases)
                addEvidence(face, e, *batch);
            return std::move(*batch);
        };
        const InputBatch batch = makeBatch();
        const double perCase = 1000.0 / static_cast<double>(cases.size());
        const double total = perCase * bench::bestMs(reps, [&] {
                                 const auto r = runTasks(model, Task::Mar, cases);
                                 if (r.empty() || !r[0])
                                     std::fprintf(stderr, "%s: MAR failed\n", path.c_str());
                             });
        const double pass = perCase * bench::bestMs(reps, [&] {
                                if (!model.forwardBackward(Semiring::SumProduct, Numeric::Float64,
                                                           batch, 0))
                                    std::fprintf(stderr, "%s: the pass failed\n", path.c_str());
                            });
        auto values = model.forwardBackward(Semiring::SumProduct, Numeric::Float64, batch, 0);
        if (!values)
            continue;
        const double rest = perCase * bench::bestMs(reps, [&] {
                                TaskBatch b = beginBatch(model, Task::Mar, cases, {});
                                (void)finishBatch(model, b, cases, {}, *values);
                            });
        const double building = perCase * bench::bestMs(reps, [&] { (void)makeBatch(); });
        std::printf("| %s | %zu | %zu | %zu | %s | %.2f | %.2f | %.2f | %.3f |\n",
                    std::filesystem::path(path).stem().c_str(), face.numInputs(),
                    batch.varying.size(), cases.size(), model.describe(Numeric::Float64).c_str(),
                    total, pass, rest, building);
        std::fflush(stdout);
    }
    return 0;
}
