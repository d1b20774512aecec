#include "tools/zbddc/cmd_run_cost_network.h"
#include "compiler/elimination/elimination_stats.h"
#include "compiler/elimination/order_file.h"

#include "tools/zbddc/cli_checks.h"
#include "tools/zbddc/order_flags.h"
#include "tools/zbddc/output.h"
#include "pipeline/load_model.h"
#include "compiler/frontends/uai/uai_reader.h"
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "runtime/device_list.h"
#include "runtime/bucket_elimination/problem_library.h"
#include "runtime/bucket_elimination/solve_be.h"
#include "runtime/evidence.h"
#include "ir/number_text.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <iostream>
#include <sstream>

namespace zbddc::cli {

namespace {

// A UAI .evid file, read by the runtime's reader: variables and values by index. A WCSP run
// answers one case.
Result<std::vector<uint32_t>> readEvidence(const RunOptions &o, const CostNetwork &net) {
    const std::string &path = o.evidence;
    if (path.empty())
        return std::vector<uint32_t>{};
    std::vector<Variable> variables(net.numVariables());
    for (size_t v = 0; v < variables.size(); ++v) {
        variables[v].name = v < net.variableNames.size() ? net.variableNames[v] : std::to_string(v);
        for (uint32_t value = 0; value < net.domainSizes[v]; ++value)
            variables[v].states.push_back(std::to_string(value));
    }
    const auto layout = parseEvidenceLayout(o.evidenceFormat).value_or(EvidenceLayout::Detect);
    auto file = readUaiEvidenceFile(path, variables, layout);
    if (!file)
        return file.error();
    if (file->cases.size() != 1)
        return errorAt(path, 0, "a WCSP run takes one evidence case, the file has " +
                                    std::to_string(file->cases.size()));
    if (const std::string &why = file->cases[0].contradiction; !why.empty())
        return errorAt(path, 0, "the evidence contradicts itself: " + why);
    return std::move(file->cases[0].states); // unobserved: kNone
}

std::string variableName(const CostNetwork &net, size_t v) {
    return v < net.variableNames.size() ? net.variableNames[v] : std::to_string(v);
}

} // namespace

int runProblemLibrary(const RunOptions &o);
int printSolution(const RunOptions &o, const CostNetwork &shape, const Solution &solution);

// .uai BAYES files go through the network (MLF) route; UAI MARKOV networks are not Bayesian
// networks, so they take the elimination route (isCostNetworkFile).
void addCostNetworkRunOptions(CLI::App &run, CostNetworkRunOptions &f) {
    f.order.addTo(run, "(.wcsp, MARKOV .uai, --route jt)", {"search"});
    run.add_flag("--incomplete-tables", f.incompleteTables,
                 "(.wcsp) keep only rows below the upper bound in every table "
                 "(Bistaffa et al. 2017 §IV)");
    run.add_option("--split-threshold", f.splitThreshold,
                   "(.wcsp, --device split) buckets of at least this many entries (output rows x "
                   "eliminated values) run on the GPU, smaller ones on the CPU")
        ->check(wholeNumber(false));
    run.add_option("--devices", f.devices,
                   "the GPUs to use: all, a count, or ordinals such as 0,2 (0,0: two logical "
                   "devices on GPU 0). Bucket elimination (.wcsp, MARKOV .uai) spreads independent "
                   "buckets over them and slices large ones across them; the junction-tree route "
                   "splits its cases evenly over them");
}

bool isCostNetworkRun(const RunOptions &o) {
    const std::string ext = fileExtension(o.model);
    return isCostNetworkFile(o.model) || (ext == ".so" && ProblemLibrary::isProblemLibrary(o.model));
}

bool isCostNetworkFile(const std::string &path) {
    const std::string ext = fileExtension(path);
    return ext == ".wcsp" || (ext == ".uai" && peekUaiType(path) == "MARKOV");
}

namespace {

// With --approximate, route auto answers a cost network by loopy BP where bucket elimination
// cannot: a task it does not answer (MAR and PR of a MARKOV network), or tables (min-fill order)
// over half the physical memory. Returns why, or nothing where bucket elimination fits.
std::optional<std::string> noExactCostRoute(const RunOptions &o) {
    if (!o.task.empty() && o.task != "mpe")
        return "auto --approximate: no exact route answers --task " + o.task + " on a cost network";
    auto net = readCostNetworkFile(o.model);
    if (!net)
        return std::nullopt; // the exact route reports the error
    const InteractionGraph graph = buildInteractionGraph(net->domainSizes, functionScopes(*net));
    const OrderStats st = analyzeOrder(graph, greedyOrder(graph, OrderHeuristic::MinFill));
    const double bytes = 8 * st.totalMessageEntries;
    if (bytes <= physicalMemoryBytes() / 2)
        return std::nullopt;
    return "auto --approximate: bucket elimination needs " + shortestText(bytes) +
           " bytes of tables (min-fill), over half the memory";
}

} // namespace

int runCostNetworkCommand(const RunOptions &o) {
    if (o.loopy.approximate && fileExtension(o.model) != ".so")
        if (auto why = noExactCostRoute(o))
            return runLoopyCommand(o, *why);
    if (!o.task.empty() && o.task != "mpe") {
        std::cerr
            << "zbddc: a .wcsp or UAI MARKOV problem supports only --task mpe (optimal cost and "
               "assignment)\n";
        return 2;
    }
    if (o.costNetwork.order.heuristic == "search") {
        std::cerr << "zbddc: --heuristic search applies to junction trees (networks) only\n";
        return 2;
    }
    if (fileExtension(o.model) == ".so")
        return runProblemLibrary(o);
    auto net = readCostNetworkFile(o.model);
    if (!net)
        return reportError(net.error());
    BeOptions options;
    // A missing GPU is not an error: --device cuda runs on the CPU then, and says so.
    options.executor = o.device == "cpu" || o.device == "split" ? o.device : "auto";
    auto evidence = readEvidence(o, *net);
    if (!evidence)
        return reportError(evidence.error());
    options.evidence = std::move(*evidence);
    const CostNetworkRunOptions &flags = o.costNetwork;
    options.heuristic = *parseOrderHeuristic(flags.order.heuristicOr("min-fill")); // CLI checked the name
    options.incompleteTables = flags.incompleteTables;
    options.execution.splitThresholdEntries = flags.splitThreshold;
    options.execution.devices = flags.devices;
    if (!flags.devices.empty())
        if (auto request = parseDeviceRequest(flags.devices); !request) {
            std::cerr << "zbddc: " << request.error().message << "\n";
            return 2;
        }
    if (!flags.devices.empty() && options.executor != "auto")
        std::cerr << "zbddc: note: --devices is for the GPU executor; --device " << o.device
                  << " ignores it\n";
    if (!flags.order.orderFile.empty()) {
        auto order = readOrderFile(flags.order.orderFile, net->numVariables());
        if (!order)
            return reportError(order.error());
        options.order = std::move(*order);
    }
    auto sol = solveBucketElimination(*net, options);
    if (!sol)
        return reportError(errorAt(o.model, 0, sol.error().message));
    using Kind = DeviceReport::Kind;
    if ((o.device == "cuda" && sol->device.kind != Kind::Cuda) ||
        (o.device == "split" && sol->device.kind != Kind::Split))
        std::cerr
            << "zbddc: note: no usable GPU (or no CUDA backend in this build); ran on the CPU\n";
    return printSolution(o, *net, *sol);
}

// A problem.so (zbddc PROBLEM.wcsp -o problem.so) answers through its C ABI, with the variables
// its metadata describes; evidence and output are those of the .wcsp run.
int runProblemLibrary(const RunOptions &o) {
    if (o.device == "cuda" || o.device == "reference" || o.device == "split")
        std::cerr << "zbddc: note: a problem.so runs its own compiled CPU code; --device "
                  << o.device << " is ignored\n";
    if (!o.costNetwork.order.orderFile.empty())
        std::cerr << "zbddc: note: a problem.so keeps the order it was compiled with; --order is "
                     "ignored\n";
    auto lib = ProblemLibrary::open(o.model);
    if (!lib)
        return reportError(lib.error());
    const CostNetwork shape = lib->metadata().shape(); // for the evidence reader and the printer
    auto evidence = readEvidence(o, shape);
    if (!evidence)
        return reportError(evidence.error());
    auto sol = lib->solve(*evidence);
    if (!sol)
        return reportError(errorAt(o.model, 0, sol.error().message));
    return printSolution(o, shape, *sol);
}

// Without --json: the UAI MPE block alone (a solution block holds nothing else), and the cost on
// stderr; with it, one JSON object (docs/cli.md). Costs print in full: integers exactly, reals
// as the shortest text that reads back as the same double.
int printSolution(const RunOptions &o, const CostNetwork &net, const Solution &sol) {
    const size_t n = net.numVariables();
    const std::string cost = sol.feasible ? net.costText(sol.cost) : "infeasible";
    std::ostringstream text;
    if (o.json) {
        text << "{\"task\": \"mpe\", \"feasible\": " << (sol.feasible ? "true" : "false")
             << ", \"cost\": " << (sol.feasible ? cost : "null") << ", \"assignment\": {";
        for (size_t v = 0; v < n; ++v)
            text << (v ? ", " : "") << jsonString(variableName(net, v)) << ": "
                 << jsonString(std::to_string(sol.assignment[v]));
        text << "}, \"device\": " << jsonString(sol.device.label())
             << ", \"induced_width\": " << sol.stats.inducedWidth
             << ", \"largest_table_entries\": " << jsonNumber(sol.stats.largestTableEntries)
             << ", \"time_ms\": " << jsonNumber(sol.stats.totalMs) << "}\n";
    } else {
        text << "MPE\n" << n;
        for (size_t v = 0; v < n; ++v)
            text << ' ' << sol.assignment[v];
        text << "\n";
        std::cerr << "cost " << cost << "\n";
    }
    return emitRunOutput(text.str(), o.output, o.uaiOutput, o.model, "MPE");
}

} // namespace zbddc::cli
