// The host's time in a GPU bucket-elimination solve, by step: `gpu_host_steps [--reps N] FILE...`
// (WCSP files). Each instance's solve (solveTensorProgramCuda, the one step runner over the GPU's
// TensorDevice) the fastest of N warm ones (20 by default): its wall time, its phases as the run
// reports them, and the runner's steps — wall time per step and per kernel launch. On the null
// driver (bench/null_cuda/null_cuda.cpp:
// `LD_LIBRARY_PATH=build/bench/null_cuda build/bench/gpu_host_steps FILE`) kernels and copies
// cost nothing, so every figure is host time: what a GPU would wait for between launches when
// its kernels are shorter than that. The optimum is printed, not checked (wcsp_be checks it;
// the null driver's is meaningless).
#include "backends/tensor/cuda/run/tensor_gpu.h"
#include "compiler/elimination/bucket_program.h"
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "runtime/bucket_elimination/solve_be.h"
#include "support/gpu_settings.h"
#include "support/timer.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace zbddc;

namespace {

// One instance; false where it failed.
bool measure(const std::string &path, int reps) {
    const std::string name = path.substr(path.find_last_of('/') + 1);
    auto net = readCostNetworkFile(path);
    if (!net) {
        std::printf("%s: %s\n", name.c_str(), net.error().str().c_str());
        return false;
    }
    BeOptions be;
    BeStats beStats;
    auto order = planElimination(*net, be, beStats);
    if (!order) {
        std::printf("%s: %s\n", name.c_str(), order.error().str().c_str());
        return false;
    }
    auto program = buildBucketProgram(*net, *order);
    if (!program) {
        std::printf("%s: %s\n", name.c_str(), program.error().str().c_str());
        return false;
    }
    cuda::GpuExecOptions o;
    o.switches = gpuSwitchesFromVariables(std::getenv); // docs/cli.md
    double best = 0;
    cuda::GpuExecStats fastest;
    double optimum = 0;
    for (int r = 0; r <= reps; ++r) { // the first compiles or finds the modules: not counted
        cuda::GpuExecStats st;
        std::vector<uint32_t> assignment(net->numVariables(), 0);
        const auto t0 = std::chrono::steady_clock::now();
        auto solved = cuda::solveTensorProgramCuda(*program, assignment, o, &st);
        const double ms = msSince(t0);
        if (!solved) {
            std::printf("%s: %s\n", name.c_str(), solved.error().str().c_str());
            return false;
        }
        optimum = *solved;
        if (r > 0 && (r == 1 || ms < best)) {
            best = ms;
            fastest = st;
        }
    }
    const cuda::GpuExecStats &s = fastest;
    const double steps = static_cast<double>(std::max<uint64_t>(s.steps, 1));
    const double launches = static_cast<double>(std::max<uint64_t>(s.launches, 1));
    std::printf("%-16s %s: %zu ops in %zu levels; solve %.3f ms = prepare %.3f (modules "
                "found %.3f) + device open and steps planned %.3f + steps %.3f (upload %.3f, "
                "kernels %.3f, value %.3f) + device closed %.3f + the rest %.3f; %llu steps, "
                "%.2f us a step; %llu launches, %.2f us a launch; optimum %.0f\n",
                name.c_str(), s.device.c_str(), program->ops.size(), program->levels.size(), best,
                s.prepareMs, s.compileMs, s.openMs, s.stepsMs, s.uploadMs, s.kernelMs, s.valueMs,
                s.closeMs, best - s.prepareMs - s.openMs - s.stepsMs - s.closeMs,
                static_cast<unsigned long long>(s.steps), 1000 * s.stepsMs / steps,
                static_cast<unsigned long long>(s.launches), 1000 * s.stepsMs / launches, optimum);
    return true;
}

} // namespace

int main(int argc, char **argv) {
    gpuSettings = gpuSettingsFromVariables(std::getenv); // docs/cli.md
    int reps = 20;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = std::max(1, std::atoi(argv[++i]));
        else if (argv[i][0] == '-') {
            std::fprintf(stderr, "usage: gpu_host_steps [--reps N] FILE.wcsp...\n");
            return 2;
        } else
            files.push_back(argv[i]);
    }
    if (files.empty()) {
        std::fprintf(stderr, "usage: gpu_host_steps [--reps N] FILE.wcsp...\n");
        return 2;
    }
    if (Status usable = cuda::cudaAvailable(); !usable) {
        std::printf("no GPU: %s\n", usable.error().message.c_str());
        return 1;
    }
    int failed = 0;
    for (const std::string &f : files)
        failed += !measure(f, reps);
    return failed ? 1 : 0;
}
