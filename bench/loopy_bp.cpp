// Loopy BP's speed per design (Piatkowski 2011): per workload, the time of one flooding sweep and
// the message entries updated per second on the CPU (all threads) and on the GPU in each design,
// forced (data-parallel: a thread per message entry x instance; thread-cooperative: a block per
// factor x instance); for networks with evidence batches, the sweeps alarm-like batches need to
// converge and the error of LBP's marginals against the junction tree's; and the crossover batch
// size between the two GPU designs (the seed measured about 8).
//
//   loopy_bp [--workloads grid100-2,grid100-31,grid1000-2,protein,alarm,water,pathfinder]
//            [--sweeps N] [--cases B] [--networks DIR] [--devices cpu,dp,coop]
//            [--no-crossover]
//            [--write-uai DIR] [--json FILE] [--md FILE]
// Sweeps run with tolerance 0 (exactly N sweeps), so every device does the same work. Synthetic
// workloads are generated here from fixed seeds (tests/support/synthetic_factor_graphs.h);
// --write-uai also writes them as UAI MARKOV files for the pyAgrum peer (bench/peers/pyagrum_lbp.py).
#include "bench/comma_list.h"
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/moral_graph.h"
#include "compiler/junction_tree/order_search.h"
#include "runtime/junction_tree/junction_tree_model.h"
#include "runtime/loopy/loopy_gpu.h"
#include "runtime/loopy/loopy_tasks.h"
#include "runtime/sample_evidence.h"
#include "support/gpu_settings.h"
#include "support/json.h"
#include "support/timer.h"
#include "tests/support/synthetic_factor_graphs.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace zbddc;
using namespace zbddc::testing;

namespace {

struct Args {
    std::vector<std::string> workloads{"grid100-2", "grid100-31", "grid1000-2", "protein",
                                       "alarm",     "water",      "pathfinder"};
    uint32_t sweeps = 20;
    uint32_t cases = 2000;
    std::string networks = ZBDDC_BENCHMARKS_DIR "/bn";
    std::vector<std::string> devices{"cpu", "dp", "coop"};
    bool crossover = true;
    std::string writeUai, json, md;
};

struct Workload {
    FactorGraph graph;
    std::vector<Evidence> cases;
    std::optional<BayesNet> net; // networks: for the junction tree's marginals
};

Result<Workload> makeWorkload(const std::string &name, const Args &a) {
    Workload w;
    uint32_t side = 0, labels = 0;
    if (std::sscanf(name.c_str(), "grid%u-%u", &side, &labels) == 2) {
        w.graph = pairwiseGrid(side, labels, 0.5, side * 100 + labels);
    } else if (name == "protein") {
        w.graph = proteinLikeModel(1);
    } else {
        auto net = readNetworkFile(a.networks + "/" + name + ".bif");
        if (!net)
            return net.error();
        auto g = factorGraphOfNetwork(*net);
        if (!g)
            return g.error();
        w.graph = std::move(*g);
        w.cases = sampleEvidence(*net, a.cases, 0.2, 1);
        w.net = std::move(*net);
        return w;
    }
    w.cases.assign(1, Evidence{std::vector<uint32_t>(w.graph.numVariables(), kNone), {}});
    return w;
}

// The pairwise model as a UAI MARKOV file (tables as probabilities, exp of the log values).
void writeUai(const FactorGraph &g, const std::string &path) {
    std::ofstream out(path);
    out << "MARKOV\n" << g.numVariables() << "\n";
    for (uint32_t d : g.domainSizes)
        out << d << " ";
    out << "\n" << g.factors.size() << "\n";
    for (const LoopyFactor &f : g.factors) {
        out << f.scope.size();
        for (uint32_t v : f.scope)
            out << " " << v;
        out << "\n";
    }
    char buf[32];
    for (const LoopyFactor &f : g.factors) {
        out << "\n" << f.logValues.size() << "\n";
        for (double x : f.logValues) {
            std::snprintf(buf, sizeof buf, "%.17g ", std::exp(x));
            out << buf;
        }
        out << "\n";
    }
}

struct Row {
    std::string workload, device;
    uint32_t batch = 0, sweeps = 0;
    double sweepMs = 0, entriesPerS = 0, messagesPerS = 0;
    std::string note;
};

Row measure(const Workload &w, const std::string &name, const std::string &device, uint32_t sweeps,
            std::span<const Evidence> cases) {
    LoopyOptions o;
    o.tolerance = 0;
    o.maxIterations = sweeps;
    Row r{name, device, uint32_t(cases.size()), sweeps, 0, 0, 0, {}};
    if (device == "cpu") {
        const SteadyTime start = std::chrono::steady_clock::now();
        const auto runs = runLoopyBp(w.graph, cases, o);
        r.sweepMs = msSince(start) / sweeps;
        r.note = "all threads, wall time incl. beliefs";
    } else {
        auto run = runLoopyBpGpu(w.graph, cases, o,
                                 device == "dp" ? LoopyGpuDesign::DataParallel
                                                : LoopyGpuDesign::Cooperative);
        if (!run) {
            r.note = run.error().message;
            return r;
        }
        r.sweepMs = run->sweepMs;
        r.note = run->device + "; " + run->design;
    }
    const double s = r.sweepMs / 1000;
    r.entriesPerS = double(w.graph.messageEntries()) * cases.size() / s;
    r.messagesPerS = double(w.graph.numEdges()) * cases.size() / s;
    return r;
}

// Mean and largest |LBP - exact| over every marginal of the first cases.
std::pair<double, double> marginalError(const Workload &w, size_t cases) {
    OrderSearchOptions search;
    search.maxRuns = 8;
    auto tree = buildJunctionTree(*w.net, searchOrder(moralGraph(*w.net), search).order);
    if (!tree)
        return {NAN, NAN};
    JunctionTreeOptions cpu;
    cpu.executor = "cpu";
    JunctionTreeModel jt(*w.net, std::move(*tree), cpu);
    std::span<const Evidence> first(w.cases.data(), std::min(cases, w.cases.size()));
    const auto exact = jt.run(Task::Mar, first);
    const auto approx = runLoopyTasks(w.graph, Task::Mar, first, {});
    double sum = 0, worst = 0;
    size_t n = 0;
    for (size_t c = 0; c < first.size(); ++c) {
        if (!exact[c] || !approx[c])
            continue;
        for (size_t v = 0; v < exact[c]->marginals.size(); ++v)
            for (size_t x = 0; x < exact[c]->marginals[v].size(); ++x) {
                const double d = std::abs(exact[c]->marginals[v][x] - approx[c]->marginals[v][x]);
                sum += d, worst = std::max(worst, d), ++n;
            }
    }
    return {n ? sum / n : NAN, worst};
}

} // namespace

int main(int argc, char **argv) {
    zbddc::gpuSettings = zbddc::gpuSettingsFromVariables(std::getenv); // docs/cli.md
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::cerr << "loopy_bp: " << arg << " needs a value\n";
                std::exit(2);
            }
            return argv[++i];
        };
        if (arg == "--workloads")
            a.workloads = bench::commaList(next());
        else if (arg == "--sweeps")
            a.sweeps = uint32_t(std::stoul(next()));
        else if (arg == "--cases")
            a.cases = uint32_t(std::stoul(next()));
        else if (arg == "--networks")
            a.networks = next();
        else if (arg == "--devices")
            a.devices = bench::commaList(next());
        else if (arg == "--no-crossover")
            a.crossover = false;
        else if (arg == "--write-uai")
            a.writeUai = next();
        else if (arg == "--json")
            a.json = next();
        else if (arg == "--md")
            a.md = next();
        else {
            std::cerr << "loopy_bp: unknown argument " << arg << "\n";
            return 2;
        }
    }
    const bool gpu = bool(loopyGpuUsable());
    if (!gpu)
        std::cerr << "loopy_bp: no GPU (" << loopyGpuUsable().error().message << "): CPU only\n";
    std::vector<Row> rows;
    std::ostringstream extra; // convergence, errors, crossover
    for (const std::string &name : a.workloads) {
        auto w = makeWorkload(name, a);
        if (!w) {
            std::cerr << "loopy_bp: " << name << ": " << w.error().str() << "\n";
            continue;
        }
        if (!a.writeUai.empty() && !w->net)
            writeUai(w->graph, a.writeUai + "/" + name + ".uai");
        for (const std::string &device : a.devices) {
            if (device != "cpu" && !gpu)
                continue;
            rows.push_back(measure(*w, name, device, a.sweeps, w->cases));
            const Row &r = rows.back();
            std::fprintf(stderr, "%s %s batch %u: %.4f ms/sweep, %.3g entries/s %s\n", name.c_str(),
                         device.c_str(), r.batch, r.sweepMs, r.entriesPerS, r.note.c_str());
        }
        if (w->net) {
            const auto [mean, worst] = marginalError(*w, 200);
            extra << "| " << name
                  << " | LBP marginal error vs junction tree (200 cases, tol 1e-6) | mean " << mean
                  << ", max " << worst << " |\n";
            if (gpu) { // sweeps to converge at 1e-6, per batch-iteration time
                LoopyOptions o;
                auto run = runLoopyBpGpu(w->graph, w->cases, o);
                if (run) {
                    size_t converged = 0;
                    for (const LoopyCase &c : run->cases)
                        converged += c.converged;
                    extra << "| " << name << " | GPU, tolerance 1e-6, " << w->cases.size()
                          << " cases | " << converged << " converged in " << run->sweeps
                          << " sweeps, " << run->sweepMs << " ms per batch-iteration |\n";
                }
            }
        }
    }
    if (a.crossover && gpu) { // the protein-like model, batches of 1 .. 64
        Workload w{proteinLikeModel(1), {}, std::nullopt};
        uint32_t crossover = 0;
        for (uint32_t b = 1; b <= 64; b *= 2) {
            w.cases.assign(b, Evidence{std::vector<uint32_t>(w.graph.numVariables(), kNone), {}});
            Row dp = measure(w, "protein-crossover", "dp", 10, w.cases);
            Row co = measure(w, "protein-crossover", "coop", 10, w.cases);
            rows.push_back(dp);
            rows.push_back(co);
            if (!crossover && dp.sweepMs <= co.sweepMs)
                crossover = b;
        }
        extra << "| protein-like | crossover batch (data-parallel no slower than cooperative) | "
              << (crossover ? std::to_string(crossover) : std::string("> 64"))
              << " (Piatkowski 2011: about 8) |\n";
    }
    std::ostringstream md;
    md << "| workload | device | batch | sweeps | ms/sweep | message entries/s | messages/s | note "
          "|\n"
          "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
    for (const Row &r : rows) {
        char line[512];
        std::snprintf(line, sizeof line, "| %s | %s | %u | %u | %.4f | %.3g | %.3g | %s |\n",
                      r.workload.c_str(), r.device.c_str(), r.batch, r.sweeps, r.sweepMs,
                      r.entriesPerS, r.messagesPerS, r.note.c_str());
        md << line;
    }
    md << "\n| workload | what | result |\n| --- | --- | --- |\n" << extra.str();
    std::cout << md.str();
    if (!a.md.empty())
        std::ofstream(a.md) << md.str();
    if (!a.json.empty()) {
        std::ofstream out(a.json);
        out << "[";
        for (size_t i = 0; i < rows.size(); ++i) {
            const Row &r = rows[i];
            out << (i ? "," : "") << "{\"workload\":" << jsonString(r.workload)
                << ",\"device\":" << jsonString(r.device) << ",\"batch\":" << r.batch
                << ",\"sweeps\":" << r.sweeps << ",\"sweep_ms\":" << r.sweepMs
                << ",\"entries_per_s\":" << r.entriesPerS
                << ",\"messages_per_s\":" << r.messagesPerS << ",\"note\":" << jsonString(r.note)
                << "}";
        }
        out << "]\n";
    }
    return 0;
}
