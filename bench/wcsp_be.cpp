// Bucket elimination on WCSP/UAI instances: sequential CPU BE (1 thread), parallel CPU BE (all
// hardware threads), the GPU where one is usable, and toulbar2 (its optimum is the oracle) side by
// side. On the GPU (each run the fastest of --gpu-reps warm solves, 5 by default, the variants
// taking turns): where the time went (upload, kernels, VALUE phase, finding the compiled kernels,
// host preparation = order + lowering), launches, whether one CUDA graph ran and the tables were
// floats, the same solve captured as one CUDA graph, with streams planned from the buckets'
// dependencies and with double tables beside it (GpuSwitches), and the achieved bandwidth (bytes
// the ops must move / kernel time).
// With --devices LIST (repeatable: 0,0 / 2 / 4 / all), the same solve over several devices
// (tensor_gpu.h: buckets spread, large ones sliced), beside the one-GPU run and beside
// the same devices with a host wait per level and with the program's own layouts; with
// --slice-threshold N, ops of at least N entries of work are sliced across them; with
// --device-budget-mib M, each device of those runs holds at most M MiB of tables, as if the GPUs
// were that small (one GPU goes out of core, several slice what one would not hold).
// Prints a table and writes JSON.
// Usage: wcsp_be [--json FILE] [--heuristic NAME] [--toulbar2-opts "..."] [--devices LIST]...
//                [--slice-threshold N] [--device-budget-mib M] [--gpu-reps N] FILE...
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "runtime/bucket_elimination/solve_be.h"
#include "support/gpu_settings.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

using namespace zbddc;

namespace {

struct Toulbar2Answer {
    std::optional<std::string> optimum; // as toulbar2 prints it (exact past 2^53)
    bool noSolution = false;            // toulbar2 proved the problem infeasible
    double seconds = 0;
};

Toulbar2Answer runToulbar2(const std::string &path, const std::string &opts) {
    Toulbar2Answer a;
    const auto t0 = std::chrono::steady_clock::now();
    std::unique_ptr<FILE, int (*)(FILE *)> pipe(
        popen(("timeout 60 toulbar2 '" + path + "' " + opts + " 2>&1").c_str(), "r"), pclose);
    char line[4096];
    while (pipe && std::fgets(line, sizeof line, pipe.get())) {
        char number[64];
        if (std::sscanf(line, "Optimum: %63s", number) == 1)
            a.optimum = number;
        if (std::strncmp(line, "No solution", 11) == 0)
            a.noSolution = true;
    }
    pipe.reset();
    a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return a;
}

// A solve's own time: the program's run and the traceback, not ordering or building it.
double runMs(const Solution &s) {
    return s.stats.solveMs + s.stats.tracebackMs;
}

// A GPU variant: the solve with options of its own (null: the shared options, the default).
struct GpuVariant {
    std::optional<Solution> *into;
    const BeOptions *options = nullptr;
};

// Every variant the fastest of `reps` solves, the variants taking turns (one solve of each per
// round, after one untimed solve of each, which fills the NVRTC disk cache and loads the
// modules): timed one after another, the first variant measured ran slower than the same
// configuration timed later (SPOT5 404: 0.86 against 0.65 ms of kernels), so an order of whole
// variants would favour the later ones. A variant that fails is left empty; the default's error
// is returned.
Status fastestInterleaved(const CostNetwork &net, const BeOptions &o, int reps,
                          const std::vector<GpuVariant> &variants) {
    Status defaultError = Ok{};
    for (int r = -1; r < reps; ++r)
        for (const GpuVariant &v : variants) {
            auto timed = solveBucketElimination(net, v.options ? *v.options : o);
            if (!timed) {
                if (!v.options)
                    defaultError = timed.error();
                v.into->reset();
                continue;
            }
            if (r >= 0 && (!*v.into || runMs(*timed) < runMs(**v.into)))
                *v.into = std::move(*timed);
        }
    return defaultError;
}

} // namespace

int main(int argc, char **argv) {
    zbddc::gpuSettings = zbddc::gpuSettingsFromVariables(std::getenv); // docs/cli.md
    std::string jsonPath = "wcsp_be.json", tbOpts = "-B=1";
    OrderHeuristic heuristic = OrderHeuristic::MinFill;
    std::vector<std::string> files, deviceLists;
    uint64_t sliceThreshold = MultiDeviceOptions{}.sliceThresholdEntries;
    uint64_t budgetBytes = 0; // --device-budget-mib: each GPU as if it held only this much
    int gpuReps = 5;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--json") && i + 1 < argc)
            jsonPath = argv[++i];
        else if (!std::strcmp(argv[i], "--toulbar2-opts") && i + 1 < argc)
            tbOpts = argv[++i];
        else if (!std::strcmp(argv[i], "--devices") && i + 1 < argc)
            deviceLists.push_back(argv[++i]);
        else if (!std::strcmp(argv[i], "--slice-threshold") && i + 1 < argc)
            sliceThreshold = std::strtoull(argv[++i], nullptr, 10);
        else if (!std::strcmp(argv[i], "--gpu-reps") && i + 1 < argc)
            gpuReps = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--device-budget-mib") && i + 1 < argc)
            budgetBytes = std::strtoull(argv[++i], nullptr, 10) << 20;
        else if (!std::strcmp(argv[i], "--heuristic") && i + 1 < argc) {
            auto h = parseOrderHeuristic(argv[++i]);
            if (!h) {
                std::fprintf(stderr, "unknown heuristic %s\n", argv[i]);
                return 2;
            }
            heuristic = *h;
        } else
            files.push_back(argv[i]);
    }
    if (files.empty()) {
        std::fprintf(stderr, "usage: wcsp_be [--json FILE] [--heuristic NAME] [--toulbar2-opts "
                             "\"...\"] [--devices LIST]... [--slice-threshold N] "
                             "[--device-budget-mib M] [--gpu-reps N] FILE...\n");
        return 2;
    }
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    const bool haveGpu = gpuUsable().ok();
    if (!haveGpu)
        std::printf("(no GPU here: CPU and toulbar2 only)\n");
    std::printf("%-26s %5s %9s %9s %12s %12s %8s %12s %10s %s\n", "instance", "width", "log10 tab",
                "order ms", "BE 1thr ms", "BE all ms", "speedup", "BE cost", "tb2 s",
                "tb2 optimum");
    std::ofstream json(jsonPath);
    json << "{\"machine_threads\": " << threads << ", \"heuristic\": \""
         << orderHeuristicName(heuristic) << "\", \"instances\": [";
    bool firstJson = true;
    int failures = 0;
    for (const std::string &path : files) {
        const std::string name = path.substr(path.find_last_of('/') + 1);
        auto net = readCostNetworkFile(path);
        if (!net) {
            std::printf("%-26s %s\n", name.c_str(), net.error().str().c_str());
            continue;
        }
        BeOptions o;
        o.heuristic = heuristic;
        o.execution.threads = 1;
        o.execution.gpuSwitches = gpuSwitchesFromVariables(std::getenv); // docs/cli.md
        auto seq = solveBucketElimination(*net, o);
        if (!seq) {
            std::printf("%-26s %s\n", name.c_str(), seq.error().str().c_str());
            continue;
        }
        o.execution.threads = threads;
        auto par = solveBucketElimination(*net, o);
        // GPU: each variant the fastest of gpuReps warm solves; a solve's time covers upload,
        // kernels, VALUE phase and finding the compiled modules.
        // The variants whose comparisons are settled (a thread per row, groups of one variable or in
        // row order, the VALUE plan in global memory, plain stores, a launch per op, streams planned
        // from the buckets' dependencies) have their
        // figures in bench/results/NOTEBOOK.md and no switch any more.
        std::optional<Solution> gpu, gpuGraph, gpuDoubles;
        if (haveGpu) {
            BeOptions g = o;
            g.executor = "cuda";
            BeOptions graph = g, doubles = g;
            graph.execution.gpuSwitches.graphs = true; // the same run captured as one graph
            doubles.execution.gpuSwitches.narrowCosts = false;   // 64-bit tables (where not)
            const std::vector<GpuVariant> variants = {{&gpu},
                                                      {&gpuGraph, &graph},
                                                      {&gpuDoubles, &doubles}};
            if (Status s = fastestInterleaved(*net, g, gpuReps, variants); !s)
                std::printf("%-26s GPU: %s\n", name.c_str(), s.error().str().c_str());
            if (gpu && !gpu->stats.execution.float32)
                gpuDoubles.reset(); // the default already
        }
        // The same solve over several devices, with the host waiting for every level, and with
        // the program's own layouts (slice_layout.h off), taking turns as above.
        struct MultiRun {
            std::string devices;
            std::optional<Solution> solution, levelByLevel, ownLayouts;
            std::string error;
        };
        std::vector<MultiRun> multi;
        for (const std::string &devices : haveGpu ? deviceLists : std::vector<std::string>{}) {
            BeOptions m = o;
            m.executor = "cuda";
            m.execution.devices = devices;
            m.execution.multiDevice.sliceThresholdEntries = sliceThreshold;
            m.execution.gpuBudgetBytes = budgetBytes;
            BeOptions levelled = m, own = m;
            levelled.execution.multiDevice.levelByLevel = true;
            own.execution.multiDevice.keepLayouts = true;
            MultiRun &r = multi.emplace_back();
            r.devices = devices;
            if (Status s = fastestInterleaved(*net, m, gpuReps,
                                              {{&r.solution},
                                               {&r.levelByLevel, &levelled},
                                               {&r.ownLayouts, &own}});
                !s)
                r.error = s.error().str();
        }
        const Toulbar2Answer tb = net->integerCosts ? runToulbar2(path, tbOpts) : Toulbar2Answer{};
        // Agreement with toulbar2 when it answered: the same optimum, or both infeasible.
        const bool tbAnswered = tb.optimum.has_value() || tb.noSolution;
        auto same = [&](const Solution &s) { return net->sameCost(s.cost, seq->cost); };
        const std::string cost = seq->feasible ? net->costText(seq->cost) : "infeasible";
        const bool agree =
            par && same(*par) && (!haveGpu || (gpu && same(*gpu))) &&
            (!gpuGraph || same(*gpuGraph)) && (!gpuDoubles || same(*gpuDoubles)) &&
            std::all_of(multi.begin(), multi.end(),
                        [&](const MultiRun &r) {
                            return (!r.solution || same(*r.solution)) &&
                                   (!r.levelByLevel || same(*r.levelByLevel)) &&
                                   (!r.ownLayouts || same(*r.ownLayouts));
                        }) &&
            (!tbAnswered ||
             (tb.noSolution ? !seq->feasible : seq->feasible && *tb.optimum == cost));
        failures += !agree;
        std::printf("%-26s %5u %9.1f %9.1f %12.1f %12.1f %8.2f %12s %10.3f %s%s\n", name.c_str(),
                    seq->stats.inducedWidth, std::log10(seq->stats.largestTableEntries),
                    seq->stats.orderMs, seq->stats.totalMs, par ? par->stats.totalMs : NAN,
                    par ? seq->stats.totalMs / par->stats.totalMs : NAN, cost.c_str(), tb.seconds,
                    tb.optimum      ? tb.optimum->c_str()
                    : tb.noSolution ? "no solution"
                                    : "-",
                    agree ? "" : "  MISMATCH");
        // Solve + VALUE phase on each side: what differs between executors (order and lowering
        // are the same host work for all).
        const auto run = runMs;
        const ExecutionTimes none;
        const ExecutionTimes &gt = gpu ? gpu->stats.execution : none;
        const double bandwidth = gt.kernelMs > 0 ? gt.tableBytes / (gt.kernelMs * 1e6) : 0;
        if (gpu) {
            std::printf(
                "%-26s GPU %s: run %.2f ms (%.1fx 1 thread, %.1fx %u threads) = upload %.2f "
                "+ kernels %.2f (%llu launches%s) + VALUE %.2f ms (%s) + compile %.2f; "
                "host prep %.1f ms; %.1f GB/s over %.1f MB",
                "", gpu->device.label().c_str(), run(*gpu), run(*seq) / run(*gpu),
                par ? run(*par) / run(*gpu) : NAN, threads, gt.uploadMs, gt.kernelMs,
                (unsigned long long)gt.launches,
                gt.graph ? (gt.float32 ? ", one graph, float tables" : ", one graph")
                         : (gt.float32 ? ", float tables" : ""),
                gt.valueMs, gt.valueOnDevice ? "on the device" : "on the host", gt.compileMs,
                gpu->stats.orderMs + gpu->stats.buildMs, bandwidth, gt.tableBytes / 1e6);
            if (gpuGraph)
                std::printf("; as one graph run %.2f ms (kernels %.2f)", run(*gpuGraph),
                            gpuGraph->stats.execution.kernelMs);
            if (gpuDoubles)
                std::printf("; with double tables run %.2f ms (kernels %.2f)", run(*gpuDoubles),
                            gpuDoubles->stats.execution.kernelMs);
            std::printf("\n");
        }
        for (const MultiRun &r : multi) {
            if (!r.solution) {
                std::printf("%-26s --devices %s: %s\n", "", r.devices.c_str(), r.error.c_str());
                continue;
            }
            const ExecutionTimes &mt = r.solution->stats.execution;
            std::printf("%-26s --devices %s: run %.2f ms (%.2fx one GPU, %.1fx %u threads) = "
                        "upload %.2f + between devices %.2f + kernels %.2f + VALUE %.2f ms + "
                        "compile %.2f + plan %.2f; %.1f GB/s; on %s\n",
                        "", r.devices.c_str(), run(*r.solution),
                        gpu ? run(*gpu) / run(*r.solution) : NAN,
                        par ? run(*par) / run(*r.solution) : NAN, threads, mt.uploadMs, mt.peerMs,
                        mt.kernelMs, mt.valueMs, mt.compileMs, mt.planMs,
                        mt.kernelMs > 0 ? mt.tableBytes / (mt.kernelMs * 1e6) : 0,
                        r.solution->device.label().c_str());
            if (r.levelByLevel) {
                const ExecutionTimes &lt = r.levelByLevel->stats.execution;
                std::printf("%-26s   a host wait per level: run %.2f ms = upload %.2f + between "
                            "devices %.2f + kernels %.2f + VALUE %.2f ms + compile %.2f\n",
                            "", run(*r.levelByLevel), lt.uploadMs, lt.peerMs, lt.kernelMs,
                            lt.valueMs, lt.compileMs);
            }
            if (r.ownLayouts)
                std::printf("%-26s   the program's own layouts: run %.2f ms (kernels %.2f)\n", "",
                            run(*r.ownLayouts), r.ownLayouts->stats.execution.kernelMs);
        }
        json << (firstJson ? "" : ",") << "\n  {\"instance\": \"" << name
             << "\", \"width\": " << seq->stats.inducedWidth
             << ", \"largest_table_entries\": " << seq->stats.largestTableEntries
             << ", \"order_ms\": " << seq->stats.orderMs
             << ", \"be_seq_ms\": " << seq->stats.totalMs
             << ", \"be_par_ms\": " << (par ? par->stats.totalMs : -1)
             << ", \"be_seq_solve_ms\": " << seq->stats.solveMs
             << ", \"be_seq_run_ms\": " << run(*seq)
             << ", \"be_par_run_ms\": " << (par ? run(*par) : -1)
             << ", \"gpu_run_ms\": " << (gpu ? run(*gpu) : -1)
             << ", \"gpu_upload_ms\": " << gt.uploadMs << ", \"gpu_kernel_ms\": " << gt.kernelMs
             << ", \"gpu_value_ms\": " << gt.valueMs
             << ", \"gpu_value_on_device\": " << (gt.valueOnDevice ? "true" : "false")
             << ", \"gpu_compile_ms\": " << gt.compileMs << ", \"gpu_launches\": " << gt.launches
             << ", \"gpu_graph\": " << (gt.graph ? "true" : "false")
             << ", \"gpu_float32\": " << (gt.float32 ? "true" : "false")
             << ", \"gpu_table_bytes\": " << gt.tableBytes << ", \"gpu_gb_per_s\": " << bandwidth
             << ", \"host_prep_ms\": " << (gpu ? gpu->stats.orderMs + gpu->stats.buildMs : -1)
             << ", \"gpu_graph_run_ms\": " << (gpuGraph ? run(*gpuGraph) : -1)
             << ", \"gpu_double_run_ms\": " << (gpuDoubles ? run(*gpuDoubles) : -1)
             << ", \"gpu_solve_ms\": " << (gpu ? gpu->stats.solveMs : -1) << ", \"gpu_device\": \""
             << (gpu ? gpu->device.label() : std::string("none")) << "\""
             << ", \"cost\": " << (seq->feasible ? cost : "-1")
             << ", \"toulbar2_s\": " << tb.seconds
             << ", \"toulbar2_optimum\": " << (tb.optimum ? *tb.optimum : "-1")
             << ", \"toulbar2_no_solution\": " << (tb.noSolution ? "true" : "false")
             << ", \"multi_device\": [";
        for (size_t i = 0; i < multi.size(); ++i)
            json << (i ? ", " : "") << "{\"devices\": \"" << multi[i].devices
                 << "\", \"run_ms\": " << (multi[i].solution ? run(*multi[i].solution) : -1)
                 << ", \"upload_ms\": "
                 << (multi[i].solution ? multi[i].solution->stats.execution.uploadMs : -1)
                 << ", \"peer_ms\": "
                 << (multi[i].solution ? multi[i].solution->stats.execution.peerMs : -1)
                 << ", \"kernel_ms\": "
                 << (multi[i].solution ? multi[i].solution->stats.execution.kernelMs : -1)
                 << ", \"value_ms\": "
                 << (multi[i].solution ? multi[i].solution->stats.execution.valueMs : -1)
                 << ", \"level_by_level_run_ms\": "
                 << (multi[i].levelByLevel ? run(*multi[i].levelByLevel) : -1)
                 << ", \"own_layouts_run_ms\": "
                 << (multi[i].ownLayouts ? run(*multi[i].ownLayouts) : -1) << ", \"device\": \""
                 << (multi[i].solution ? multi[i].solution->device.label() : multi[i].error)
                 << "\"}";
        json << "], \"agree\": " << (agree ? "true" : "false") << "}";
        firstJson = false;
    }
    json << "\n]}\n";
    return failures ? 1 : 0;
}
