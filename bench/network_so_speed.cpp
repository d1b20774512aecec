// network.so (the junction tree compiled to C behind zbdd_network.h) against the in-process CPU
// junction tree on the same cases: the time to write the .so (lowering, C emission, the system
// compiler), then PR, MAR and MPE over forward-sampled cases (20% observed) on 1 thread and on
// every hardware thread. Every row checks that log10 P(e) agrees case by case.
//   build/bench/network_so_speed [--cases N] NET.bif...
// (no files: asia, alarm, insurance, hailfinder and pigs from the benchmark folder).
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/moral_graph.h"
#include "compiler/junction_tree/order_search.h"
#include "runtime/junction_tree/junction_tree_library.h"
#include "runtime/junction_tree/junction_tree_model.h"
#include "runtime/shared_objects/network_library.h"
#include "runtime/sample_evidence.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace zbddc;

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <typename F> double timed(F &&f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return secondsSince(t0);
}

bool sameLog10(const std::vector<Result<TaskResult>> &a, const std::vector<Result<TaskResult>> &b) {
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i].ok() != b[i].ok() || (a[i] && std::abs(a[i]->log10 - b[i]->log10) > 1e-9))
            return false;
    return true;
}

} // namespace

int main(int argc, char **argv) {
    size_t cases = 1000;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--cases") == 0 && i + 1 < argc)
            cases = std::max<size_t>(1, std::strtoull(argv[++i], nullptr, 10));
        else
            files.push_back(argv[i]);
    }
    if (files.empty())
        for (const char *n : {"asia", "alarm", "insurance", "hailfinder", "pigs"})
            files.push_back(std::string(ZBDDC_SHARED_BENCHMARKS) + "/bn/" + n + ".bif");
    const unsigned all = std::max(1u, std::thread::hardware_concurrency());
    const std::string dir = std::filesystem::temp_directory_path().string() + "/network_so_speed-" +
                            std::to_string(getpid());
    std::filesystem::create_directories(dir);
    std::printf("%zu cases, 20%% observed; times in ms per case; threads 1 and %u\n\n", cases, all);
    std::printf("| network | write .so (s) | batch | task | .so 1t | in-process 1t | .so %ut | "
                "in-process %ut | agree |\n|---|---|---|---|---|---|---|---|---|\n",
                all, all);
    for (const std::string &file : files) {
        auto net = readNetworkFile(file);
        if (!net) {
            std::fprintf(stderr, "%s\n", net.error().message.c_str());
            return 1;
        }
        OrderSearchOptions search;
        search.maxRuns = 8;
        auto tree = buildJunctionTree(*net, searchOrder(moralGraph(*net), search).order);
        if (!tree) {
            std::fprintf(stderr, "%s: %s\n", file.c_str(), tree.error().message.c_str());
            return 1;
        }
        const std::string name = std::filesystem::path(file).stem().string();
        const std::string so = dir + "/" + name + ".so";
        Result<JunctionTreeLibraryStats> written = error("not written");
        const double writeSeconds =
            timed([&] { written = writeJunctionTreeLibrary(*net, *tree, so); });
        if (!written) {
            std::fprintf(stderr, "%s: %s\n", file.c_str(), written.error().message.c_str());
            return 1;
        }
        auto lib = NetworkLibrary::open(so);
        if (!lib) {
            std::fprintf(stderr, "%s\n", lib.error().message.c_str());
            return 1;
        }
        const std::vector<Evidence> evidence = sampleEvidence(*net, cases, 0.2, 1);
        for (Task task : {Task::Pr, Task::Mar, Task::Mpe}) {
            double ms[4];
            std::vector<Result<TaskResult>> viaSo, inProcess;
            for (int t = 0; t < 2; ++t) {
                const unsigned threads = t == 0 ? 1 : all;
                lib->setThreads(threads);
                lib->run(task, evidence); // the same warm-up
                ms[2 * t] = timed([&] { viaSo = lib->run(task, evidence); }) * 1e3 / cases;
                JunctionTreeOptions options;
                options.executor = "cpu";
                options.threads = threads;
                JunctionTreeModel model(*net, *tree, options);
                model.run(task, evidence); // lowered and prepared once, as a .so is compiled
                ms[2 * t + 1] = timed([&] { inProcess = model.run(task, evidence); }) * 1e3 / cases;
            }
            std::printf("| %s | %.2f | %u | %s | %.3f | %.3f | %.3f | %.3f | %s |\n", name.c_str(),
                        writeSeconds, written->batch, taskName(task), ms[0], ms[1], ms[2], ms[3],
                        sameLog10(viaSo, inProcess) ? "yes" : "NO");
        }
    }
    std::filesystem::remove_all(dir);
    return 0;
}
