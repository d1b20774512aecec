// The junction-tree route over Fast-BNI's workload (Jiang et al. 2023): per network, N
// forward-sampled cases with a fraction of the variables observed, MAR and MPE answered per
// device (cpu: all host threads; cuda: the generated kernels) in batches sized by memory, and
// one case at a time; the largest difference of each device's marginals from the CPU's. Writes
// the cases (NAME.evid) and the CPU's marginals of the first cases (NAME.mar.json) so that a peer
// (bench/peers/pyagrum_lazy.py) runs the same cases and compares.
//
// Devices: cpu (each case lowered alone, its CPTs sliced by its evidence, one case per thread),
// cpu-network-tree and cpu-case-tree (the same, every case on the network's tree or on its own,
// evidence_tree.h; cpu chooses by cost), cuda. The
// first CPU row listed is the one the others are compared with and whose marginals are written.
//
//   jt_batch [--cases N] [--cpu-cases M] [--mpe-cases K] [--observed F] [--seed S]
//            [--devices cpu,cuda] [--spread LIST]... [--single K] [--threads T] [--out DIR]
//            [--json FILE] [--case-times]
//            NET.bif...
// --spread LIST (repeatable; `--devices` syntax of the CLI: 0,0 / 2 / all) adds a GPU row whose
// cases are split evenly over those devices.
// --cpu-cases: the CPU answers only the first M cases (large networks), and the differences are
// taken over those; --mpe-cases likewise bounds MPE's cases on every device. Each MPE
// assignment's probability is recomputed from the CPTs against the value reported (MPE log10
// gap). The GPU's first run (NVRTC compiles its kernels) is timed apart. In --json, a number not
// measured (no host traceback, --single 0, no CPU row to compare with) or not finite is null.
// --case-times: the per-case CPU row's cases again, each alone on one thread, their CPU times'
// median, 90th percentile and maximum printed (a few slow cases decide the wall time of a
// 16-thread run over 16 cases).
#include "bench/comma_list.h"
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/junction_tree_stats.h"
#include "compiler/junction_tree/moral_graph.h"
#include "compiler/junction_tree/order_search.h"
#include "ir/number_text.h"
#include "runtime/tensor/tensor_executor.h"
#include "runtime/junction_tree/junction_tree_model.h"
#include "runtime/junction_tree/junction_tree_per_case.h"
#include "runtime/sample_evidence.h"
#include "support/gpu_settings.h"
#include "support/json.h"
#include "support/timer.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

using namespace zbddc;

namespace {

struct Args {
    size_t cases = 2000;
    size_t cpuCases = SIZE_MAX;
    size_t mpeCases = SIZE_MAX;
    double observed = 0.2;
    uint64_t seed = 1;
    std::vector<std::string> devices{"cpu", "cuda"};
    std::vector<std::string> spreads; // --spread: GPU lists the cases are split over
    size_t single = 20; // cases answered one at a time (batch of one)
    unsigned threads = 0; // CPU threads; 0: all
    bool caseTimes = false;
    std::string out = ".";
    std::string json;
    std::vector<std::string> networks;
};

double maxDifference(const std::vector<Result<TaskResult>> &a,
                     const std::vector<Result<TaskResult>> &b) {
    double worst = 0;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
        if (!a[i] || !b[i])
            continue;
        worst = std::max(worst, std::fabs(a[i]->log10 - b[i]->log10));
        for (size_t v = 0; v < a[i]->marginals.size(); ++v)
            for (size_t x = 0; x < a[i]->marginals[v].size(); ++x)
                worst = std::max(worst, std::fabs(a[i]->marginals[v][x] - b[i]->marginals[v][x]));
    }
    return worst;
}

// MPE answers checked on their own: the largest gap between the log10 of each assignment's
// probability, recomputed from the CPTs, and the MPE value reported beside it (0 up to rounding
// where the traceback found an assignment of the maximum's probability).
double mpeGap(const BayesNet &net, const std::vector<Result<TaskResult>> &mpe) {
    double worst = 0;
    for (const auto &r : mpe) {
        if (!r)
            continue;
        double log10p = 0;
        for (uint32_t v = 0; v < net.variables.size(); ++v) {
            const BnVariable &var = net.variables[v];
            log10p += std::log10(
                var.cpt[net.cptRow(v, r->assignment) * var.states.size() + r->assignment[v]]);
        }
        worst = std::max(worst, std::fabs(log10p - r->log10));
    }
    return worst;
}

// Failed cases; the first one's reason goes to stderr (a whole batch failing is a bug to see).
size_t failures(const std::vector<Result<TaskResult>> &r, const char *what) {
    size_t n = 0;
    for (const auto &x : r)
        if (!x.ok() && n++ == 0)
            std::cerr << "jt_batch: " << what << ": first failed case: " << x.error().str() << "\n";
    return n;
}

void writeMarginals(const std::string &path, const BayesNet &net,
                    const std::vector<Result<TaskResult>> &mar, size_t count) {
    std::ofstream o(path);
    o << "[";
    for (size_t i = 0; i < count && i < mar.size(); ++i) {
        o << (i ? ",\n" : "") << "{";
        for (size_t v = 0; v < net.variables.size(); ++v) {
            o << (v ? "," : "") << jsonString(net.variables[v].name) << ":[";
            for (size_t x = 0; mar[i] && x < mar[i]->marginals[v].size(); ++x)
                o << (x ? "," : "") << jsonNumber(mar[i]->marginals[v][x]);
            o << "]";
        }
        o << "}";
    }
    o << "]\n";
}

// Each case alone on one thread (the per-case route): its CPU time in ms, in case order.
std::vector<double> caseCpuMs(const BayesNet &net, const JunctionTree &tree,
                              std::span<const Evidence> cases, CaseTree caseTree) {
    std::vector<double> ms;
    for (const Evidence &e : cases) {
        const std::clock_t start = std::clock();
        runJunctionTreePerCase(net, tree, Task::Mar, std::span(&e, 1), 1,
                               JunctionTreeLowering::Belief::ByCost, caseTree);
        ms.push_back(1000.0 * static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC);
    }
    return ms;
}

void printCaseTimes(const std::string &name, std::vector<double> ms) {
    if (ms.empty())
        return;
    const std::vector<double> inOrder = ms;
    std::sort(ms.begin(), ms.end());
    auto at = [&](double q) {
        return ms[static_cast<size_t>(q * static_cast<double>(ms.size() - 1))];
    };
    const auto slowest = std::max_element(inOrder.begin(), inOrder.end()) - inOrder.begin();
    std::printf("%s: %zu cases alone, CPU ms median %.3g, p90 %.3g, max %.3g (case %zu)\n",
                name.c_str(), ms.size(), at(0.5), at(0.9), ms.back(),
                static_cast<size_t>(slowest));
}

} // namespace

int main(int argc, char **argv) {
    zbddc::gpuSettings = zbddc::gpuSettingsFromVariables(std::getenv); // docs/cli.md
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string s = argv[i];
        auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
        if (s == "--cases")
            a.cases = std::stoul(next());
        else if (s == "--cpu-cases")
            a.cpuCases = std::stoul(next());
        else if (s == "--mpe-cases")
            a.mpeCases = std::stoul(next());
        else if (s == "--observed")
            a.observed = std::stod(next());
        else if (s == "--seed")
            a.seed = std::stoull(next());
        else if (s == "--devices")
            a.devices = bench::commaList(next());
        else if (s == "--spread")
            a.spreads.push_back(next());
        else if (s == "--threads")
            a.threads = static_cast<unsigned>(std::stoul(next()));
        else if (s == "--case-times")
            a.caseTimes = true;
        else if (s == "--single")
            a.single = std::stoul(next());
        else if (s == "--out")
            a.out = next();
        else if (s == "--json")
            a.json = next();
        else
            a.networks.push_back(s);
    }
    std::filesystem::create_directories(a.out);
    std::ofstream json(a.json.empty() ? "/dev/null" : a.json);
    std::printf("| network | cliques | clique entries | device | batch | MAR ms/case | MPE ms/case "
                "| MPE ms/case, host traceback | MAR B=1 ms | first run s | max diff vs cpu "
                "| MPE log10 gap | MAR CPU ms/case |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const std::string &path : a.networks) {
        auto net = readNetworkFile(path);
        if (!net) {
            std::fprintf(stderr, "%s\n", net.error().str().c_str());
            continue;
        }
        const std::string name = std::filesystem::path(path).stem().string();
        const SteadyTime t0 = std::chrono::steady_clock::now();
        auto tree = buildJunctionTree(*net, searchOrder(moralGraph(*net)).order);
        if (!tree) {
            std::fprintf(stderr, "%s: %s\n", name.c_str(), tree.error().message.c_str());
            continue;
        }
        const double orderMs = msSince(t0);
        const JunctionTreeStats st = junctionTreeStats(*tree);
        const std::vector<Evidence> cases = sampleEvidence(*net, a.cases, a.observed, a.seed);
        std::ofstream(a.out + "/" + name + ".evid") << uaiEvidenceText(cases);
        std::vector<Result<TaskResult>> cpuMar;
        std::vector<std::pair<std::string, std::string>> rows; // executor, --spread list
        for (const std::string &device : a.devices)
            rows.push_back({device, ""});
        for (const std::string &spread : a.spreads)
            rows.push_back({"cuda", spread});
        for (const auto &[device, spread] : rows) {
            if (device == "cuda" && !gpuUsable())
                continue;
            const bool cpu =
                device == "cpu" || device == "cpu-network-tree" || device == "cpu-case-tree";
            JunctionTreeOptions options;
            options.executor = cpu ? "cpu" : device;
            options.gpuSwitches = gpuSwitchesFromVariables(std::getenv); // docs/cli.md
            options.threads = a.threads;
            if (device == "cpu-network-tree")
                options.caseTree = CaseTree::Network;
            if (device == "cpu-case-tree")
                options.caseTree = CaseTree::Evidence;
            if (!spread.empty()) {
                auto gpus = resolveGpuRequest(spread);
                if (!gpus) {
                    std::fprintf(stderr, "%s\n", gpus.error().str().c_str());
                    continue;
                }
                options.gpus = std::move(*gpus);
            }
            if (!cpu && spread.empty()) // MPE traced back on the GPU (then on the host)
                options.traceback = JunctionTreeOptions::Traceback::OnExecutor;
            JunctionTreeModel model(*net, *tree, options);
            JunctionTreeRunInfo info;
            const std::span<const Evidence> run = std::span(cases).first(
                cpu ? std::min(a.cpuCases, cases.size()) : cases.size());
            const double n = static_cast<double>(run.size());
            SteadyTime t = std::chrono::steady_clock::now();
            std::clock_t cpuStart = std::clock();
            auto mar = model.run(Task::Mar, run, &info);
            double firstS = msSince(t) / 1000, marMs = msSince(t) / n;
            if (!cpu) { // again, with the kernels compiled
                t = std::chrono::steady_clock::now();
                cpuStart = std::clock();
                mar = model.run(Task::Mar, run, &info);
                marMs = msSince(t) / n;
            }
            // The process's CPU time per case (all threads): on a shared machine, less disturbed
            // by other load than the wall time; with --threads 1, one thread's time per case.
            const double marCpuMs =
                1000.0 * static_cast<double>(std::clock() - cpuStart) / CLOCKS_PER_SEC / n;
            const auto mpeRun = run.first(std::min(a.mpeCases, run.size()));
            if (!cpu && !mpeRun.empty())
                model.run(Task::Mpe, mpeRun);
            t = std::chrono::steady_clock::now();
            const auto mpe = model.run(Task::Mpe, mpeRun);
            const double mpeMs = msSince(t) / static_cast<double>(mpeRun.size());
            // The GPU's MPE again with the traceback on the host (every table downloaded): the
            // same cases, side by side.
            double hostTracebackMs = NAN;
            if (!cpu && spread.empty() && !mpeRun.empty()) {
                JunctionTreeOptions host = options;
                host.traceback = JunctionTreeOptions::Traceback::OnHost;
                JunctionTreeModel hostModel(*net, *tree, host);
                hostModel.run(Task::Mpe, mpeRun); // compiles for this batch, as above
                t = std::chrono::steady_clock::now();
                const auto hostMpe = hostModel.run(Task::Mpe, mpeRun);
                hostTracebackMs = msSince(t) / static_cast<double>(mpeRun.size());
                failures(hostMpe, "MPE (host traceback)");
            }
            double singleMs = NAN; // --single 0: not measured
            if (const auto firstCases = std::span(cases).first(std::min(a.single, cases.size()));
                !firstCases.empty()) {
                JunctionTreeOptions one = options;
                one.maxBatch = 1;
                JunctionTreeModel single(*net, *tree, one);
                single.run(Task::Mar, firstCases.first(1));
                t = std::chrono::steady_clock::now();
                single.run(Task::Mar, firstCases);
                singleMs = msSince(t) / static_cast<double>(firstCases.size());
            }
            if (a.caseTimes && cpu)
                printCaseTimes(name + " (" + device + ")",
                               caseCpuMs(*net, *tree, run, options.caseTree));
            if (cpu && cpuMar.empty()) {
                cpuMar = mar;
                writeMarginals(a.out + "/" + name + ".mar.json", *net, mar, 20);
            }
            const double diff = cpuMar.empty() ? NAN : maxDifference(mar, cpuMar);
            const double gap = mpeGap(*net, mpe);
            std::printf(
                "| %s | %u | %.3g | %s | %u | %.4g | %.4g | %.4g | %.4g | %.3g | %.2g | %.2g | "
                "%.4g |\n",
                name.c_str(), st.cliques, st.totalCliqueEntries,
                (info.device.label() + (cpu && device != "cpu" ? " [" + device + "]" : ""))
                    .c_str(),
                info.batch, marMs, mpeMs, hostTracebackMs, singleMs, firstS, diff, gap, marCpuMs);
            std::fflush(stdout);
            json << "{\"network\":" << jsonString(name) << ",\"cliques\":" << st.cliques
                 << ",\"clique_entries\":" << st.totalCliqueEntries << ",\"order_ms\":" << orderMs
                 << ",\"device\":" << jsonString(info.device.label()) << ",\"batch\":" << info.batch
                 << ",\"runs\":" << info.runs << ",\"bytes_per_run\":" << info.bytesPerRun
                 << ",\"cases\":" << run.size() << ",\"mar_ms_per_case\":" << jsonNumber(marMs)
                 << ",\"mar_cpu_ms_per_case\":" << jsonNumber(marCpuMs)
                 << ",\"mpe_ms_per_case\":" << jsonNumber(mpeMs)
                 << ",\"mpe_host_traceback_ms_per_case\":" << jsonNumber(hostTracebackMs)
                 << ",\"mar_single_ms\":" << jsonNumber(singleMs)
                 << ",\"first_run_s\":" << jsonNumber(firstS)
                 << ",\"mar_failures\":" << failures(mar, "MAR")
                 << ",\"mpe_failures\":" << failures(mpe, "MPE")
                 << ",\"max_diff_vs_cpu\":" << jsonNumber(diff)
                 << ",\"mpe_log10_gap\":" << jsonNumber(gap) << ",\"row\":" << jsonString(device)
                 << "}" << std::endl;
        }
    }
    return 0;
}
