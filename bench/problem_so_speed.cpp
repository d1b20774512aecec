// problem.so against the CPU bucket-elimination path on the same instances: the time to compile
// the .so (order, program, C emission, the system compiler), then one solve through its C ABI
// (specialised loop nests) beside the CPU executor's solve phase (generic strided loops), each on
// 1 thread and on every hardware thread. Every row checks that the costs agree.
//   build/bench/problem_so_speed [--repeat N] [--md F] [--json F] [FILE.wcsp|FILE.uai...]
// (no files: the five small benchmark WCSPs of the folder the build was configured with).
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "runtime/bucket_elimination/write_problem_library.h"
#include "runtime/shared_objects/problem_library.h"
#include "support/gpu_settings.h"

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace zbddc;

namespace {
double seconds(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char *fmt, ...) {
    char buf[1024];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, args);
    va_end(args);
    return buf;
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
    zbddc::gpuSettings = zbddc::gpuSettingsFromVariables(std::getenv); // docs/cli.md
    int repeat = 3;
    std::vector<std::string> files;
    std::string mdPath, jsonPath; // scripts/gpu_run.sh passes --json FILE --md FILE
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
            repeat = std::max(1, std::atoi(argv[++i]));
        else if (std::strcmp(argv[i], "--md") == 0 && i + 1 < argc)
            mdPath = argv[++i];
        else if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc)
            jsonPath = argv[++i];
        else
            files.push_back(argv[i]);
    }
    if (files.empty()) // the small benchmark WCSPs, where the build said they are
        for (const char *name : {"4queens", "warehouse", "zebra", "example", "404"})
            files.push_back(std::string(ZBDDC_SHARED_BENCHMARKS) + "/wcsp/" + name + ".wcsp");
    std::string table, json = "[";
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    const std::string dir = std::filesystem::temp_directory_path() /
                            ("zbddc-problem-speed-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    table += format(
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
                o.execution.threads = n;
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
        table += format("| %s | %u | %.2f s | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.2f× | "
                        "%.2f× | %s |\n",
                        std::filesystem::path(file).stem().c_str(), stats->order.inducedWidth,
                        compileS, soMs, soAllMs, oneMs, allMs, oneMs / soMs, allMs / soAllMs,
                        agree ? "yes" : "NO");
        json += format("%s{\"instance\":\"%s\",\"width\":%u,\"compile_s\":%.4f,\"so_1_ms\":%.4f,"
                       "\"so_all_ms\":%.4f,\"be_1_ms\":%.4f,\"be_all_ms\":%.4f,\"threads\":%u,"
                       "\"agree\":%s}",
                       json.size() > 1 ? "," : "", std::filesystem::path(file).stem().c_str(),
                       stats->order.inducedWidth, compileS, soMs, soAllMs, oneMs, allMs, threads,
                       agree ? "true" : "false");
    }
    std::filesystem::remove_all(dir);
    std::fputs(table.c_str(), stdout);
    if (!mdPath.empty())
        std::ofstream(mdPath) << table;
    if (!jsonPath.empty())
        std::ofstream(jsonPath) << json << "]\n";
    return failed ? 1 : 0;
}
