// problem.so against the CPU bucket-elimination path on the same instances: the time to compile
// the .so (order, program, C emission, the system compiler), then one solve through its C ABI
// (specialised loop nests) beside the CPU executor's solve phase (generic strided loops), each on
// 1 thread and on every hardware thread. Every row checks that the costs agree.
//   build/bench/problem_so_speed [--repeat N] FILE.wcsp|FILE.uai...
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "runtime/bucket_elimination/problem_library.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace zbddc;

namespace {
double seconds(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <typename F> double medianMs(int repeat, F &&f) {
    std::vector<double> ms;
    for (int i = 0; i < repeat; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        ms.push_back(seconds(t0) * 1e3);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}
} // namespace

int main(int argc, char **argv) {
    int repeat = 3;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
            repeat = std::max(1, std::atoi(argv[++i]));
        else
            files.push_back(argv[i]);
    }
    if (files.empty()) {
        std::fprintf(stderr, "usage: problem_so_speed [--repeat N] FILE.wcsp...\n");
        return 2;
    }
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    const std::string dir = std::filesystem::temp_directory_path() /
                            ("zbddc-problem-speed-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    std::printf(
        "| instance | width | compile .so | .so 1 thread | .so %u threads | CPU BE 1 thread | "
        "CPU BE %u threads | .so vs CPU BE, 1 thread | .so vs CPU BE, %u threads | costs "
        "agree |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n",
        threads, threads, threads);
    int failed = 0;
    for (const std::string &file : files) {
        auto net = readCostNetworkFile(file);
        if (!net) {
            std::fprintf(stderr, "%s\n", net.error().str().c_str());
            return 1;
        }
        const std::string so = dir + "/" + std::filesystem::path(file).stem().string() + ".so";
        auto t0 = std::chrono::steady_clock::now();
        auto stats = writeProblemLibrary(*net, BeOptions{}, so);
        const double compileS = seconds(t0);
        if (!stats) {
            std::fprintf(stderr, "%s: %s\n", file.c_str(), stats.error().message.c_str());
            return 1;
        }
        auto lib = ProblemLibrary::open(so);
        if (!lib) {
            std::fprintf(stderr, "%s\n", lib.error().str().c_str());
            return 1;
        }
        Solution viaSo, one, all;
        lib->setThreads(1);
        const double soMs = medianMs(repeat, [&] { viaSo = *lib->solve({}); });
        lib->setThreads(threads);
        Solution viaSoAll;
        const double soAllMs = medianMs(repeat, [&] { viaSoAll = *lib->solve({}); });
        auto solvePhase = [&](unsigned n, Solution &out) {
            std::vector<double> ms;
            for (int i = 0; i < repeat; ++i) {
                BeOptions o;
                o.threads = n;
                out = *solveBucketElimination(*net, o);
                ms.push_back(out.stats.solveMs + out.stats.tracebackMs);
            }
            std::sort(ms.begin(), ms.end());
            return ms[ms.size() / 2];
        };
        const double oneMs = solvePhase(1, one), allMs = solvePhase(threads, all);
        const bool agree =
            viaSo.cost == one.cost && one.cost == all.cost && viaSoAll.cost == one.cost;
        failed += !agree;
        std::printf("| %s | %u | %.2f s | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.2f× | %.2f× | "
                    "%s |\n",
                    std::filesystem::path(file).stem().c_str(), stats->order.inducedWidth, compileS,
                    soMs, soAllMs, oneMs, allMs, oneMs / soMs, allMs / soAllMs,
                    agree ? "yes" : "NO");
    }
    std::filesystem::remove_all(dir);
    return failed ? 1 : 0;
}
