// `zbddc run NET --route mlf|jt|auto`: which route answers a Bayesian network, and the
// junction-tree route itself (runtime/junction_tree). `auto` estimates both before compiling
// either: the MLF's ZBDD size from its frontier model (compiler/mlf/mlf_frontier.h) against the
// junction tree's clique entries, each times the work per case and the number of cases.
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/junction_tree_stats.h"
#include "compiler/junction_tree/moral_graph.h"
#include "compiler/mlf/mlf_frontier.h"
#include "runtime/bucket_elimination/tensor_executor.h"
#include "runtime/junction_tree/junction_tree_model.h"
#include "tools/zbddc/cmd_run_cost_network.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/output.h"

#include <cmath>
#include <iostream>

namespace zbddc::cli {

namespace {

// What a ZBDD node costs in clique entries' work, per device, from both routes timed side by side
// on alarm, hailfinder, water and pathfinder (BENCHMARKS.md, "The auto route, per device"; 2,000
// cases, the estimated node counts below against the trees' entries). On 16 CPU threads the MLF
// was faster on all four, by 2.9-279x, though its estimated nodes per clique entry ranged to 20
// (pathfinder): a node per case is worth ~1/50 of an entry there. On the H100 the tree was faster
// on all four (2.0-9.6x), water's 43 entries per node included: its kernels stream entries at
// ~30 ps each where the MLF pays ~3 ns per node, so a node is worth ~100 entries. Compiling a
// node (ZBDD, then the CPU loop's build) costs about 12 entries' work once (pathfinder: 1.35 s).
constexpr double kMlfNodePerCaseInEntriesCpu = 1.0 / 50.0;
constexpr double kMlfNodePerCaseInEntriesGpu = 100.0;
constexpr double kMlfNodeCompileInEntries = 12.0;

// The MLF's ZBDD size as its frontier model estimates it (a short order search).
double estimatedZbddNodes(const BayesNet &net) {
    const std::vector<uint32_t> order =
        searchFrontierOrder(net, {fileTopologicalOrder(net)}, 2'000'000);
    return std::exp(frontierLogCost(net, order));
}

} // namespace

RouteChoice chooseNetworkRoute(const std::string &route, uint64_t zbddNodeLimit,
                               const BayesNet &net, const JunctionTreeStats &jt, size_t cases,
                               bool onGpu) {
    if (route == "jt")
        return {true, "asked for (--route jt)"};
    if (route == "mlf")
        return {false, "asked for (--route mlf)"};
    const double nodes = estimatedZbddNodes(net);
    char why[240];
    if (nodes > static_cast<double>(zbddNodeLimit)) {
        std::snprintf(
            why, sizeof why,
            "auto: the MLF's ZBDD is estimated at %.3g nodes, over the node limit (%llu); "
            "the junction tree has %.3g clique entries",
            nodes, static_cast<unsigned long long>(zbddNodeLimit), jt.totalCliqueEntries);
        return {true, why};
    }
    const double perCase = onGpu ? kMlfNodePerCaseInEntriesGpu : kMlfNodePerCaseInEntriesCpu;
    const double mlf = nodes * (kMlfNodeCompileInEntries + perCase * static_cast<double>(cases));
    const double tree = jt.totalCliqueEntries * static_cast<double>(cases);
    std::snprintf(why, sizeof why,
                  "auto (%s): %zu case(s); estimated work %.3g for the MLF (%.3g ZBDD nodes) "
                  "against %.3g for the junction tree (%.3g clique entries)",
                  onGpu ? "gpu" : "cpu", cases, mlf, nodes, tree, jt.totalCliqueEntries);
    return {tree <= mlf, why};
}

namespace {

// With --approximate, route auto answers by loopy BP where neither exact route fits: the junction
// tree's tables over half the physical memory, and the MLF's ZBDD over the node limit. Returns
// why, or nothing where an exact route fits.
std::optional<std::string> noExactRouteFits(const RunOptions &o, const BayesNet &net,
                                            const JunctionTreeStats &jt) {
    const double memory = physicalMemoryBytes();
    const double tableBytes = 8 * (jt.totalCliqueEntries + jt.totalSeparatorEntries);
    if (tableBytes <= memory / 2)
        return std::nullopt;
    const double nodes = estimatedZbddNodes(net);
    if (nodes <= static_cast<double>(o.modelOptions.zbddNodeLimit))
        return std::nullopt;
    char why[200];
    std::snprintf(why, sizeof why,
                  "auto --approximate: the junction tree needs %.3g bytes of tables, the MLF "
                  "about %.3g ZBDD nodes; neither fits",
                  tableBytes, nodes);
    return std::string(why);
}

} // namespace

Result<JunctionTreeOptions> junctionTreeRunOptions(const RunOptions &o, bool single) {
    JunctionTreeOptions options;
    options.executor = o.device == "auto" && single ? "cpu" : o.device;
    if (o.device == "cuda" && !tensorGpuUsable()) {
        std::cerr << "zbddc: note: " << tensorGpuUsable().error().message << "; ran on the CPU\n";
        options.executor = "cpu";
    }
    // --devices: the cases split evenly over the GPUs named (a note and the CPU where none is).
    if (const std::string &devices = o.costNetwork.devices; !devices.empty()) {
        if (options.executor == "cpu" || !tensorGpuUsable()) {
            std::cerr << "zbddc: note: --devices " << devices << " ignored: the CPU runs\n";
        } else {
            auto gpus = resolveGpuRequest(devices);
            if (!gpus)
                return gpus.error();
            options.gpus = std::move(*gpus);
        }
    }
    return options;
}

bool isNetworkFile(const std::string &path) {
    const std::string ext = fileExtension(path);
    return ext == ".bif" || ext == ".xml" || ext == ".xmlbif" || ext == ".net" ||
           (ext == ".uai" && !isCostNetworkFile(path));
}

std::optional<int> runNetworkByRoute(const RunOptions &o, std::string &mlfWhy) {
    const auto task = parseTask(o.task.empty() ? "pr" : o.task);
    if (o.route == "mlf") {
        mlfWhy = "asked for (--route mlf)";
        return std::nullopt;
    }
    if (o.route == "auto") { // what only the compiled circuit has decides for it
        const char *flag = task == Task::Eval    ? "eval reads the circuit's outputs"
                           : o.cpuLoop           ? "--cpu-loop runs the compiled circuit"
                           : o.cpuJit            ? "--cpu-jit runs the compiled circuit"
                           : o.optLevel > 0      ? "-O compiles the circuit"
                           : o.hostLevelOps      ? "--host-level-ops cuts the circuit's levels"
                           : o.numeric != "auto" ? "--numeric chooses the circuit's arithmetic"
                           : !o.inputs.empty()   ? "--inputs sets the circuit's free inputs"
                                                 : nullptr;
        if (flag) {
            mlfWhy = std::string("auto: ") + flag;
            return std::nullopt;
        }
    }
    if (!task || *task == Task::Eval) {
        std::cerr << "zbddc: the junction-tree route answers --task pr, mar or mpe\n";
        return 2;
    }
    ReadOptions read;
    read.strict = o.modelOptions.strict;
    auto net = readNetworkFile(o.model, read);
    if (!net)
        return reportError(net.error());
    auto order = chooseOrder(networkDomainSizes(*net), familyScopes(*net), o.costNetwork.order,
                             "search", o.searchMs);
    if (!order)
        return reportError(order.error());
    auto tree = buildJunctionTree(*net, order->order);
    if (!tree)
        return reportError(errorAt(o.model, 0, tree.error().message));

    std::vector<Variable> variables;
    for (const BnVariable &v : net->variables)
        variables.push_back({v.name, v.states});
    auto cases = evidenceCases(o, variables);
    if (!cases)
        return reportError(cases.error());
    if (o.route == "auto" && o.loopy.approximate)
        if (auto why = noExactRouteFits(o, *net, junctionTreeStats(*tree)))
            return runLoopyCommand(o, *why);
    // Either route runs on the GPU where --device cuda, or auto with a batch, finds one usable.
    const bool single = singleCaseRunsOnCpu(cases->cases.size());
    const bool onGpu =
        (o.device == "cuda" || (o.device == "auto" && !single)) && tensorGpuUsable();
    const RouteChoice choice = chooseNetworkRoute(o.route, o.modelOptions.zbddNodeLimit, *net,
                                                  junctionTreeStats(*tree), cases->cases.size(),
                                                  onGpu);
    if (!choice.junctionTree) {
        mlfWhy = choice.why;
        return std::nullopt;
    }
    printWarnings(net->warnings);
    auto options = junctionTreeRunOptions(o, single);
    if (!options)
        return reportError(options.error());
    JunctionTreeModel model(*net, std::move(*tree), *options);
    std::vector<Result<TaskResult>> results = model.run(*task, cases->cases);
    for (Result<TaskResult> &r : results)
        if (r) {
            r->route = "jt";
            r->routeWhy = choice.why;
            if (o.device == "auto" && single)
                addDeviceNote(*r, "auto: one case");
        }
    if (!o.json)
        std::cerr << "zbddc: note: route jt: " << choice.why << "\n";
    return printTaskResults(o, *task, results, variables, cases->batch);
}

} // namespace zbddc::cli
