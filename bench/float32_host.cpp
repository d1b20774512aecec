// The float32 path's host work (runtime/tasks_float32.cpp) beside float64's, on a machine without
// a GPU: per network, a batch of forward-sampled cases (20% observed, seed 1) answered by
// runTasks in float64 and in float32 (PR and MAR) on the reference evaluator, whose binary32
// emulation the oracle tests use; then the error-bound analysis (runtime/float32_bound.h) of
// that batch alone. The evaluator's passes dominate both rows; their difference is float32's
// own work on the host (its analysis, its bounds, its passes' emulated rounding). The analysis is
// timed fresh and kept by the model (the next batch of the same input ranges only scans its
// inputs). ms per batch, the best of R runs after a warm-up run.
//
//   float32_host [--cases B] [--reps R] [--analysis-only] NET.bif...
#include "bench/best_of.h"
#include "bench/circuit_cases.h"
#include "runtime/float32_bound.h"
#include "runtime/tasks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>

using namespace zbddc;

int main(int argc, char **argv) {
    size_t count = 200;
    int reps = 5;
    bool analysisOnly = false;
    std::vector<std::string> networks;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--cases" && i + 1 < argc)
            count = std::stoul(argv[++i]);
        else if (arg == "--reps" && i + 1 < argc)
            reps = std::stoi(argv[++i]);
        else if (arg == "--analysis-only")
            analysisOnly = true;
        else
            networks.push_back(arg);
    }
    std::printf("| network | nodes | inputs | cases | task | float64 ms | float32 ms | "
                "float32 answered | analysis ms | kept analysis ms |\n"
                "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|\n");
    for (const std::string &path : networks) {
        const auto sampled = bench::sampleNetwork(path, count);
        if (!sampled)
            continue;
        const Circuit *circuit = &sampled->circuit;
        const std::vector<Evidence> &cases = sampled->circuitCases;
        DeviceOptions o;
        o.device = DeviceKind::Reference;
        Model model = Model::fromCircuit(*circuit, o);
        auto batch = evidenceBatch(model.interface());
        if (!batch)
            continue;
        for (const Evidence &e : cases)
            addEvidence(model.interface(), e, *batch);
        const std::vector<double> xs = batch->dense();
        const double analysisMs =
            bench::bestMs(reps, [&] { (void)analyzeFloat32(*circuit, Numeric::Float32, xs); });
        const double keptMs =
            bench::bestMs(reps, [&] { (void)model.float32Analysis(Numeric::Float32, *batch); });
        const std::vector<Task> tasks =
            analysisOnly ? std::vector{Task::Pr} : std::vector{Task::Pr, Task::Mar};
        for (Task task : tasks) {
            size_t answered = 0;
            const double f64 =
                analysisOnly ? NAN : bench::bestMs(reps, [&] { (void)runTasks(model, task, cases); });
            const double f32 = analysisOnly ? NAN : bench::bestMs(reps, [&] {
                answered = 0;
                for (const auto &r : runTasks(model, task, cases, {NumericChoice::Float32, {}}))
                    answered += r && r->errorBound;
            });
            std::printf("| %s | %zu | %zu | %zu | %s | %.2f | %.2f | %zu | %.2f | %.2f |\n",
                        std::filesystem::path(path).stem().c_str(), circuit->numNodes(),
                        circuit->numInputs(), cases.size(), taskName(task), f64, f32, answered,
                        analysisMs, keptMs);
            std::fflush(stdout);
        }
    }
    return 0;
}
