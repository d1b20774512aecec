// Host phases against none (Minato et al. 2011 §2's CPU preliminary and posterior phases;
// runtime/engine_host_phases.h): per network and per limit N of --host-level-ops (0: every level
// on the device), the MAR pass (Model::forwardBackward from the circuit's output) over one case
// at a time (median µs over K cases, after a warm-up) and over the whole batch at once (µs a
// case, the best of R), on Fast-BNI's workload (forward-sampled, 20% observed, seed 1); the
// levels cut and values crossing; and the largest difference from N = 0's answers. With
// --device cpu the CPU's own code answers (host phases are the GPU's) and the cut is only shown.
//
//   host_phases [--cases B] [--single K] [--reps R] [--ops 0,8,32] [--device cuda] NET.bif...
#include "compiler/passes/host_phases.h"
#include "bench/best_of.h"
#include "bench/circuit_cases.h"
#include "bench/comma_list.h"
#include "runtime/model.h"
#include "support/gpu_settings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

using namespace zbddc;

namespace {

std::vector<uint32_t> numbers(const std::string &s) {
    std::vector<uint32_t> out;
    for (const std::string &item : bench::commaList(s))
        out.push_back(static_cast<uint32_t>(std::stoul(item)));
    return out;
}

double largestDifference(const std::vector<double> &a, const std::vector<double> &b) {
    if (a.size() != b.size())
        return NAN;
    double d = 0;
    for (size_t i = 0; i < a.size(); ++i)
        d = std::max(d, std::abs(a[i] - b[i]));
    return d;
}

} // namespace

int main(int argc, char **argv) {
    zbddc::gpuSettings = zbddc::gpuSettingsFromVariables(std::getenv); // docs/cli.md
    size_t count = 2000, single = 50;
    int reps = 5;
    std::vector<uint32_t> limits{0, 8, 32, 128};
    DeviceKind device = DeviceKind::Cuda;
    std::vector<std::string> networks;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--cases" && i + 1 < argc)
            count = std::stoul(argv[++i]);
        else if (arg == "--single" && i + 1 < argc)
            single = std::stoul(argv[++i]);
        else if (arg == "--reps" && i + 1 < argc)
            reps = std::stoi(argv[++i]);
        else if (arg == "--ops" && i + 1 < argc)
            limits = numbers(argv[++i]);
        else if (arg == "--device" && i + 1 < argc && parseDeviceKind(argv[i + 1]))
            device = *parseDeviceKind(argv[++i]);
        else
            networks.push_back(arg);
    }
    std::printf("| network | host level ops | levels pre + device + post | values crossing | "
                "MAR pass µs, one case | MAR pass µs a case, batch | cases | largest difference "
                "from 0 | ran on |\n|---|---:|---|---:|---:|---:|---:|---:|---|\n");
    const Semiring s = Semiring::SumProduct;
    const Numeric n = Numeric::Float64;
    for (const std::string &path : networks) {
        const auto sampled = bench::sampleNetwork(path, count);
        if (!sampled)
            continue;
        const std::string name = std::filesystem::path(path).stem().string();
        std::vector<double> baseline;
        for (uint32_t limit : limits) {
            DeviceOptions o;
            o.device = device;
            o.hostLevelOps = limit;
            Model one = Model::fromCircuit(sampled->circuit, o);
            Model many = Model::fromCircuit(sampled->circuit, o);
            auto batchOf = [&](size_t first, size_t k) {
                auto batch = evidenceBatch(one.interface());
                for (size_t c = first; c < first + k; ++c)
                    addEvidence(one.interface(), sampled->circuitCases[c], *batch);
                return std::move(*batch);
            };
            std::vector<InputBatch> singles;
            for (size_t c = 0; c < std::min(single, count); ++c)
                singles.push_back(batchOf(c, 1));
            const double oneUs = bench::medianMicros(singles.size(), [&](size_t c) {
                return one.forwardBackward(s, n, singles[c], 0).ok();
            });
            const InputBatch all = batchOf(0, count);
            const double batchUs =
                1000.0 / static_cast<double>(count) * bench::bestMs(reps, [&] {
                    if (!many.forwardBackward(s, n, all, 0))
                        std::fprintf(stderr, "%s: the batch failed\n", name.c_str());
                });
            auto answers = many.forwardBackward(s, n, all, 0);
            std::vector<double> values;
            if (answers) {
                values = std::move(answers->outputs);
                values.insert(values.end(), answers->adjoints.begin(), answers->adjoints.end());
            }
            if (limit == limits.front())
                baseline = values;
            const HostPhaseCircuits parts = splitHostPhases(sampled->circuit, limit);
            std::printf("| %s | %u | %u + %u + %u | %u | %.1f | %.2f | %zu | %.1e | %s |\n",
                        name.c_str(), limit, parts.preLevels, parts.deviceLevels, parts.postLevels,
                        parts.preValues + parts.deviceValues, oneUs, batchUs, count,
                        largestDifference(values, baseline), many.describe(n).c_str());
            std::fflush(stdout);
        }
    }
    return 0;
}
