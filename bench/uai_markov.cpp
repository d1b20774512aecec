// The junction-tree route on UAI MARKOV (and BAYES) instances, per device: PR, MAR and MPE of the
// instance's own evidence (NAME.uai.evid), each timed, and the answers checked against the
// competition's files beside the instance (NAME.uai.MAR; pr-reference.tsv's log10 Z). Devices:
// cpu (all threads: the cases spread over them, each lowered alone and sliced by its evidence),
// cpu1 (the same on one thread), cuda (the generated kernels; each task's first run, which lowers
// its program and compiles its kernels, timed apart), cpu-full and cpu1-full (the GPU's program
// on the CPU executor: the full tables, evidence as indicator tables, lowered once per task as
// the GPU's is, and its first run timed apart likewise). `--cases N` answers the instance's case
// N times as one batch (one case uses one thread on the per-case route); `--evidence-dir DIR`
// answers DIR/NAME.evid's cases instead (`zbddc sample`'s; the first N with `--cases N`), the
// competition's answers then not compared (`--write-mar DIR`: the first 20 cases' MAR results per
// device into DIR/NAME-DEVICE.json, as `run --json` writes them, for the peer's comparison);
// `--repeat R` reports the
// best of R rounds of the three tasks (on the per-case route each round on the model opened
// afresh). cpu-kept: the route's own choice, all threads, on one model kept for every round as a
// library's queries come; its first two rounds (per case, then the full tables' lowering where
// they pay) are reported apart, so it needs R >= 3.
// bench/uai_markov.sh runs it beside pyAgrum (bench/peers/pyagrum_mrf.py).
//
//   uai_markov [--devices cpu,cpu1,cuda,cpu-full,cpu1-full,cpu-kept] [--cases N]
//              [--evidence-dir DIR] [--write-mar DIR] [--repeat R]
//              [--search-ms MS | --search-runs N] [--memory-gb G] NAME.uai...
//
// One tab-separated row per instance and device: instance, device, clique entries, order ms,
// then per task the wall milliseconds (PR, MAR, MPE), log10 Z, |log10 Z - reference|, the
// largest |marginal - .MAR|, MPE log10 (of the first case), the number of cases; "refused" and
// why where no tree fits.
#include "bench/comma_list.h"
#include "compiler/elimination/elimination_order.h"
#include "compiler/frontends/factor_model/factor_model.h"
#include "compiler/junction_tree/order_search.h"
#include "compiler/junction_tree/treewidth_bound.h"
#include "pipeline/json_results.h"
#include "runtime/junction_tree/factor_model_route.h"
#include "runtime/tensor/tensor_executor.h"
#include "support/gpu_settings.h"
#include "support/timer.h"
#include "tests/support/uai_result_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace zbddc;

namespace {

struct Args {
    std::vector<std::string> devices{"cpu", "cpu1", "cuda"};
    size_t cases = 0;        // 0: the evidence file's cases
    std::string evidenceDir; // --evidence-dir: DIR/NAME.evid instead of NAME.uai.evid
    std::string marDir;      // --write-mar
    int repeat = 1; // rounds of the three tasks, each task's best reported: --repeat
    double searchMs = 1000;
    uint32_t searchRuns = 0;   // --search-runs: this many runs, unbounded in time (the same order
                               // every time: builds compared on one tree); 0: searchMs bounds it
    double memoryBytes = 12e9; // the tables' limit: --memory-gb
    std::vector<std::string> files;
};

std::optional<double> prReference(const std::string &path) {
    const std::filesystem::path p(path);
    std::ifstream in(p.parent_path() / "pr-reference.tsv");
    const std::string name = p.stem().string();
    std::string instance, value;
    while (in >> instance >> value)
        if (instance == name)
            return std::stod(value);
    return std::nullopt;
}

std::optional<std::vector<std::vector<double>>> marReference(const std::string &path) {
    std::ifstream in(path + ".MAR");
    if (!in)
        return std::nullopt;
    std::stringstream text;
    text << in.rdbuf();
    if (auto one = testing::readUai2014(text.str(), "MAR"))
        return one->marginals;
    if (auto batch = testing::readUai2010(text.str(), "MAR"); batch && batch->size() == 1)
        return batch->front().marginals;
    return std::nullopt;
}

// The first `count` cases' results as `run --json` writes them (what bench/peers/pyagrum_mrf.py
// --ours reads: each one's "marginals"); a failed case as no marginals.
void writeMarginals(const std::string &path, const std::vector<Result<TaskResult>> &results,
                    const std::vector<Variable> &variables, size_t count) {
    std::ofstream out(path);
    out << "[";
    for (size_t c = 0; c < std::min(count, results.size()); ++c) {
        out << (c ? ",\n" : "");
        if (results[c])
            pipeline::writeJsonResult(*results[c], variables, out);
        else
            out << "{\"marginals\": {}}";
    }
    out << "]\n";
}

std::string number(double v, const char *format = "%.6g") {
    if (std::isnan(v))
        return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

void benchInstance(const Args &args, const std::string &path) {
    const std::string name = std::filesystem::path(path).stem().string();
    auto model = readFactorModelFile(path);
    if (!model) {
        std::cout << name << "\terror\t" << model.error().str() << "\n";
        return;
    }
    std::vector<Evidence> cases{noEvidence(model->variables)};
    const bool ownEvidence = args.evidenceDir.empty();
    const std::string evidence =
        ownEvidence ? path + ".evid" : args.evidenceDir + "/" + name + ".evid";
    if (!ownEvidence && !std::filesystem::exists(evidence)) {
        std::cout << name << "\terror\t" << evidence << ": no such file\n";
        return;
    }
    if (std::filesystem::exists(evidence)) {
        auto file = readUaiEvidenceFile(evidence, model->variables);
        if (!file) {
            std::cout << name << "\terror\t" << file.error().str() << "\n";
            return;
        }
        cases = file->cases;
    }
    if (args.cases)
        cases.resize(args.cases, cases.front());
    if (auto why = junctionTreeSurelyTooLarge(*model, args.memoryBytes)) {
        std::cout << name << "\t-\trefused\t" << *why << "\n";
        return;
    }
    const SteadyTime t0 = std::chrono::steady_clock::now();
    OrderSearchOptions search;
    search.timeLimitMs = args.searchRuns ? INFINITY : args.searchMs;
    if (args.searchRuns)
        search.maxRuns = args.searchRuns;
    const std::vector<uint32_t> order =
        searchOrder(buildInteractionGraph(model->domainSizes, model->sortedScopes()), search).order;
    const double orderMs = msSince(t0);
    const auto pr = ownEvidence ? prReference(path) : std::nullopt;
    const auto mar = ownEvidence ? marReference(path) : std::nullopt;
    for (const std::string &device : args.devices) {
        if (device == "cuda" && !gpuUsable())
            continue;
        JunctionTreeOptions run;
        run.executor = device == "cuda" ? "cuda" : "cpu";
        run.threads = device == "cpu1" || device == "cpu1-full" ? 1 : 0;
        const bool full = device.ends_with("-full"); // the full-table program, prepared once
        // cpu-kept: the route's own choice on one model kept for every round, as a library's
        // queries come (JunctionTreeModel: its first small call per case, the full tables from
        // the second where they pay); its first two rounds are reported apart.
        const bool kept = device == "cpu-kept";
        run.batchedPlan = full   ? JunctionTreeOptions::BatchedPlan::FullTables
                          : kept ? JunctionTreeOptions::BatchedPlan::ByCost
                                 : JunctionTreeOptions::BatchedPlan::PerCase; // cpu, cpu1
        run.gpuSwitches = gpuSwitchesFromVariables(std::getenv); // docs/cli.md
        JunctionTreeStats stats;
        auto tree = openFactorModelJunctionTree(*model, order, {run, args.memoryBytes}, &stats);
        if (!tree) {
            std::cout << name << "\t" << device << "\trefused\t" << tree.error().message << "\n";
            continue;
        }
        std::string firstRun;
        double ms[3] = {INFINITY, INFINITY, INFINITY};
        double log10Z = NAN, prGap = NAN, marGap = NAN, mpeLog10 = NAN;
        const Task tasks[] = {Task::Pr, Task::Mar, Task::Mpe};
        std::vector<Result<TaskResult>> results[3];
        // Rounds of PR, MAR and MPE in turn, as one case's queries come. On the CPU each round
        // opens the model afresh (untimed): PR builds the case's own tree and MAR and MPE find it
        // kept, as they would the first time. On the GPU the first run of a task lowers its
        // program, compiles its kernels (NVRTC) and places its tables: timed apart, in the first
        // round (the model keeps one program per task).
        for (int round = 0; round < args.repeat; ++round) {
            if (round > 0 && device != "cuda" && !full && !kept)
                tree = openFactorModelJunctionTree(*model, order, {run, args.memoryBytes});
            for (int t = 0; t < 3; ++t) {
                if ((device == "cuda" || full) && round == 0) {
                    const SteadyTime f0 = std::chrono::steady_clock::now();
                    (void)tree->run(tasks[t], cases); // the same batch: the same program
                    firstRun += (firstRun.empty() ? "" : "/") + number(msSince(f0), "%.0f");
                }
                const SteadyTime r0 = std::chrono::steady_clock::now();
                results[t] = tree->run(tasks[t], cases);
                if (kept && round < 2) {
                    firstRun += (firstRun.empty() ? "" : "/") + number(msSince(r0), "%.1f");
                    continue;
                }
                ms[t] = std::min(ms[t], msSince(r0));
            }
        }
        if (!args.marDir.empty())
            writeMarginals(args.marDir + "/" + name + "-" + device + ".json", results[1],
                           model->variables, 20);
        for (int t = 0; t < 3; ++t) {
            const Task task = tasks[t];
            const Result<TaskResult> &r = results[t].front();
            if (!r) {
                std::cerr << name << " " << device << " " << taskName(task) << ": "
                          << r.error().message << "\n";
                continue;
            }
            if (task == Task::Pr) {
                log10Z = r->log10;
                if (pr)
                    prGap = std::fabs(r->log10 - *pr);
            } else if (task == Task::Mar && mar && mar->size() == r->marginals.size()) {
                marGap = 0;
                for (size_t v = 0; v < mar->size(); ++v)
                    for (size_t s = 0; s < (*mar)[v].size() && s < r->marginals[v].size(); ++s)
                        marGap = std::max(marGap, std::fabs(r->marginals[v][s] - (*mar)[v][s]));
            } else if (task == Task::Mpe) {
                mpeLog10 = r->log10;
            }
        }
        std::cout << name << "\t" << device << "\t" << number(stats.totalCliqueEntries, "%.3g")
                  << "\t" << number(orderMs, "%.0f") << "\t" << number(ms[0], "%.1f") << "\t"
                  << number(ms[1], "%.1f") << "\t" << number(ms[2], "%.1f") << "\t"
                  << number(log10Z, "%.6f") << "\t" << number(prGap, "%.2g") << "\t"
                  << number(marGap, "%.2g") << "\t" << number(mpeLog10, "%.6f") << "\t"
                  << cases.size() << (firstRun.empty() ? "" : "\tfirst runs " + firstRun + " ms")
                  << std::endl;
    }
}

} // namespace

int main(int argc, char **argv) {
    zbddc::gpuSettings = zbddc::gpuSettingsFromVariables(std::getenv); // docs/cli.md
    Args args;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--devices" && i + 1 < argc)
            args.devices = bench::commaList(argv[++i]);
        else if (a == "--cases" && i + 1 < argc)
            args.cases = std::stoul(argv[++i]);
        else if (a == "--evidence-dir" && i + 1 < argc)
            args.evidenceDir = argv[++i];
        else if (a == "--write-mar" && i + 1 < argc)
            args.marDir = argv[++i];
        else if (a == "--repeat" && i + 1 < argc)
            args.repeat = std::max(1, std::stoi(argv[++i]));
        else if (a == "--search-runs" && i + 1 < argc)
            args.searchRuns = static_cast<uint32_t>(std::stoul(argv[++i]));
        else if (a == "--search-ms" && i + 1 < argc)
            args.searchMs = std::stod(argv[++i]);
        else if (a == "--memory-gb" && i + 1 < argc)
            args.memoryBytes = 1e9 * std::stod(argv[++i]);
        else if (a.rfind("--", 0) == 0) {
            std::cerr
                << "usage: uai_markov [--devices cpu,cpu1,cuda,cpu-full,cpu1-full,cpu-kept] "
                   "[--cases N] [--evidence-dir DIR] "
                   "[--write-mar DIR] "
                   "[--repeat R] [--search-ms MS | --search-runs N] [--memory-gb G] NAME.uai...\n";
            return 2;
        } else
            args.files.push_back(a);
    }
    std::cout << "instance\tdevice\tclique_entries\torder_ms\tpr_ms\tmar_ms\tmpe_ms\tlog10Z\t"
                 "pr_gap\tmar_gap\tmpe_log10\tcases\n";
    for (const std::string &f : args.files)
        benchInstance(args, f);
}
