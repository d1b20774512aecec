#include "compiler/driver/cmd_run_cost_network.h"

#include "compiler/driver/output.h"
#include "compiler/frontends/load_model.h"
#include "compiler/frontends/uai/uai_reader.h"
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "runtime/bucket_elimination/solve_be.h"
#include "runtime/evidence.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <iostream>

namespace zbddc::driver {

namespace {

// A UAI .evid file, read by the runtime's reader: variables and values by index. A WCSP run
// answers one case.
Result<std::vector<uint32_t>> readEvidence(const std::string &path, const CostNetwork &net) {
    if (path.empty())
        return std::vector<uint32_t>{};
    std::vector<Variable> variables(net.numVariables());
    for (size_t v = 0; v < variables.size(); ++v) {
        variables[v].name = v < net.variableNames.size() ? net.variableNames[v] : std::to_string(v);
        for (uint32_t value = 0; value < net.domainSizes[v]; ++value)
            variables[v].states.push_back(std::to_string(value));
    }
    auto cases = readUaiEvidenceFile(path, variables);
    if (!cases)
        return cases.error();
    if (cases->size() != 1)
        return errorAt(path, 0, "a WCSP run takes one evidence case, the file has " +
                                    std::to_string(cases->size()));
    return std::move((*cases)[0].states); // unobserved: kNone
}

// The run subcommand's elimination-order flags (seed 000 Alg. 2), registered by
// addCostNetworkRunOptions; RunOptions stays the MLF route's, so they live here.
struct CostNetworkFlags {
    std::string orderFile;
    std::string heuristic = "min-fill";
    bool incompleteTables = false;
};
CostNetworkFlags &costNetworkFlags() {
    static CostNetworkFlags flags;
    return flags;
}

std::string variableName(const CostNetwork &net, size_t v) {
    return v < net.variableNames.size() ? net.variableNames[v] : std::to_string(v);
}

} // namespace

// .uai BAYES files go through the network (MLF) route; UAI MARKOV networks are not Bayesian
// networks, so they take the elimination route (isCostNetworkRun).
void addCostNetworkRunOptions(CLI::App &run) {
    CostNetworkFlags &f = costNetworkFlags();
    run.add_option("--order", f.orderFile,
                   "(.wcsp) elimination order file: variable indices, first eliminated first");
    run.add_option("--heuristic", f.heuristic,
                   "(.wcsp) elimination order heuristic: min-fill, min-degree or weighted-min-fill")
        ->check(CLI::IsMember({"min-fill", "min-degree", "weighted-min-fill"}));
    run.add_flag("--incomplete-tables", f.incompleteTables,
                 "(.wcsp) keep only rows below the upper bound in every table (seed 002 §IV)");
}

bool isCostNetworkRun(const RunOptions &o) {
    const std::string extension = fileExtension(o.model);
    return extension == ".wcsp" || (extension == ".uai" && peekUaiType(o.model) == "MARKOV");
}

int runCostNetworkCommand(const RunOptions &o) {
    if (o.task != "mpe") {
        std::cerr
            << "zbddc: a .wcsp or UAI MARKOV problem supports only --task mpe (optimal cost and "
               "assignment)\n";
        return 2;
    }
    auto net = readCostNetworkFile(o.model);
    if (!net)
        return reportError(net.error());
    BeOptions options;
    // A missing GPU is not an error: --device cuda runs on the CPU then, and says so.
    options.executor = o.device == "cpu" ? BeExecutor::Cpu : BeExecutor::Auto;
    auto evidence = readEvidence(o.evidence, *net);
    if (!evidence)
        return reportError(evidence.error());
    options.evidence = std::move(*evidence);
    const CostNetworkFlags &flags = costNetworkFlags();
    options.heuristic = *parseOrderHeuristic(flags.heuristic); // CLI checked the name
    options.incompleteTables = flags.incompleteTables;
    if (!flags.orderFile.empty()) {
        auto order = readOrderFile(flags.orderFile, net->numVariables());
        if (!order)
            return reportError(order.error());
        options.order = std::move(*order);
    }
    auto sol = solveBucketElimination(*net, options);
    if (!sol)
        return reportError(errorAt(o.model, 0, sol.error().message));
    if (o.device == "cuda" && sol->device.rfind("cuda", 0) != 0)
        std::cerr
            << "zbddc: note: no usable GPU (or no CUDA backend in this build); ran on the CPU\n";
    const size_t n = net->numVariables();
    if (o.json) {
        std::cout << "{\"task\": \"mpe\", \"feasible\": " << (sol->feasible ? "true" : "false")
                  << ", \"cost\": ";
        if (!sol->feasible)
            std::cout << "null";
        else if (net->integerCosts)
            std::cout << static_cast<long long>(sol->cost);
        else
            std::cout << jsonNumber(sol->cost);
        std::cout << ", \"assignment\": {";
        for (size_t v = 0; v < n; ++v)
            std::cout << (v ? ", " : "") << jsonString(variableName(*net, v)) << ": "
                      << jsonString(std::to_string(sol->assignment[v]));
        std::cout << "}, \"device\": " << jsonString(sol->device)
                  << ", \"induced_width\": " << sol->stats.inducedWidth
                  << ", \"largest_table_entries\": " << jsonNumber(sol->stats.largestTableEntries)
                  << ", \"time_ms\": " << jsonNumber(sol->stats.totalMs) << "}\n";
        return 0;
    }
    std::cout << "MPE\n" << n;
    for (size_t v = 0; v < n; ++v)
        std::cout << ' ' << sol->assignment[v];
    std::cout << "\n";
    if (!sol->feasible)
        std::cout << "cost infeasible\n";
    else if (net->integerCosts)
        std::cout << "cost " << static_cast<long long>(sol->cost) << "\n";
    else
        std::cout << "cost " << sol->cost << "\n";
    return 0;
}

} // namespace zbddc::driver
