// `zbddc run MODEL --route lbp`: loopy belief propagation (runtime/loopy) on any model file — a
// Bayesian network, a UAI MARKOV network or a .wcsp (min-sum) — over the evidence cases as a
// batch. Answers are approximate, and say so: on stderr, and in the JSON with each case's
// iterations, convergence and last residual.
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "compiler/loopy/factor_graph.h"
#include "ir/number_text.h"
#include "runtime/loopy/loopy_tasks.h"
#include "tools/zbddc/cli_checks.h"
#include "tools/zbddc/cmd_run_cost_network.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/output.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <iostream>
#include <unistd.h>

namespace zbddc::cli {

double physicalMemoryBytes() {
    return double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
}

void addLoopyRunOptions(CLI::App &run, LoopyRunOptions &f) {
    run.add_option("--iterations", f.iterations,
                   "(--route lbp) most flooding sweeps or residual rounds (default 1000)")
        ->check(wholeNumber(true));
    run.add_option("--tolerance", f.tolerance,
                   "(--route lbp) converged when every message is within this of its update "
                   "(default 1e-6)")
        ->check(finiteNumber(0, HUGE_VAL, true, true, "0", "inf"));
    run.add_option("--damping", f.damping,
                   "(--route lbp) share of the old message kept, in [0, 1) (default 0)")
        ->check(finiteNumber(0, 1, false, true, "0", "1"));
    run.add_option("--schedule", f.schedule, "(--route lbp) flooding (default) or residual")
        ->check(CLI::IsMember({"flooding", "residual"}));
    run.add_option("--lbp-program", f.program,
                   "(--route lbp) what computes the messages: messages (the dedicated loops, "
                   "default) or tensor (one sweep lowered into a tensor program; flooding only)")
        ->check(CLI::IsMember({"messages", "tensor"}));
    run.add_flag("--approximate", f.approximate,
                 "(--route auto) answer by loopy BP where no exact route fits in memory");
}

namespace {

struct LoadedGraph {
    FactorGraph graph;
    std::vector<Variable> variables;
    std::optional<CostNetwork> costNetwork; // kept to recompute an assignment's cost
};

Result<LoadedGraph> loadFactorGraph(const RunOptions &o) {
    LoadedGraph out;
    if (isCostNetworkFile(o.model)) {
        auto net = readCostNetworkFile(o.model);
        if (!net)
            return net.error();
        auto graph = factorGraphOfCostNetwork(*net, o.model);
        if (!graph)
            return graph.error();
        out.graph = std::move(*graph);
        out.costNetwork = std::move(*net);
    } else {
        ReadOptions read;
        read.strict = o.modelOptions.strict;
        auto net = readNetworkFile(o.model, read);
        if (!net)
            return net.error();
        printWarnings(net->warnings);
        auto graph = factorGraphOfNetwork(*net);
        if (!graph)
            return graph.error();
        out.graph = std::move(*graph);
        for (const BnVariable &v : net->variables)
            out.variables.push_back({v.name, v.states});
        return out;
    }
    for (uint32_t v = 0; v < out.graph.numVariables(); ++v) { // states named by index
        Variable var{out.graph.names[v], {}};
        for (uint32_t s = 0; s < out.graph.domainSizes[v]; ++s)
            var.states.push_back(std::to_string(s));
        out.variables.push_back(std::move(var));
    }
    return out;
}

} // namespace

int runLoopyCommand(const RunOptions &o, const std::string &why) {
    const bool wcsp = fileExtension(o.model) == ".wcsp";
    const auto task =
        parseTask(o.task.empty() ? (isCostNetworkFile(o.model) ? "mpe" : "pr") : o.task);
    if (!task || *task == Task::Eval || (wcsp && *task != Task::Mpe)) {
        std::cerr << "zbddc: --route lbp answers --task "
                  << (wcsp ? "mpe on a .wcsp" : "pr, mar or mpe") << "\n";
        return 2;
    }
    if (o.device == "split" || o.device == "reference") {
        std::cerr << "zbddc: --route lbp runs on --device auto, cpu or cuda\n";
        return 2;
    }
    auto loaded = loadFactorGraph(o);
    if (!loaded)
        return reportError(loaded.error());
    auto cases = evidenceCases(o, loaded->variables);
    if (!cases)
        return reportError(cases.error());
    LoopyOptions options;
    const LoopyRunOptions &f = o.loopy;
    if (f.iterations)
        options.maxIterations = f.iterations;
    if (f.tolerance >= 0)
        options.tolerance = f.tolerance;
    if (f.damping >= 0)
        options.damping = f.damping;
    options.schedule = parseLoopySchedule(f.schedule).value_or(LoopySchedule::Flooding);
    const LoopyDevice device = o.device == "cpu"    ? LoopyDevice::Cpu
                               : o.device == "cuda" ? LoopyDevice::Cuda
                                                    : LoopyDevice::Auto;
    const LoopyProgramKind program =
        parseLoopyProgramKind(f.program).value_or(LoopyProgramKind::Messages);
    std::vector<Result<TaskResult>> results =
        runLoopyTasks(loaded->graph, *task, cases->cases, options, device, program);
    if (device == LoopyDevice::Cuda && !results.empty() && results[0] &&
        results[0]->device.rfind("cpu", 0) == 0)
        std::cerr << "zbddc: note: " << results[0]->device << "\n";
    size_t converged = 0, answered = 0;
    double worst = 0;
    for (Result<TaskResult> &r : results) {
        if (!r)
            continue;
        ++answered;
        converged += r->approximate->converged;
        worst = std::max(worst, r->approximate->maxResidual);
        r->route = "lbp";
        r->routeWhy = why;
        if (const auto &net = loaded->costNetwork; net && *task == Task::Mpe) {
            const Cost cost = assignmentCost(*net, r->assignment);
            r->cost = net->feasible(cost) ? net->costText(cost) : "null";
        }
    }
    std::cerr << "zbddc: note: route lbp (" << why << "): approximate answers by loopy belief "
              << "propagation; " << converged << " of " << answered
              << " case(s) converged (tolerance " << options.tolerance
              << "), largest last residual " << worst << "\n";
    if (loaded->costNetwork && *task == Task::Mpe && !o.json)
        for (const Result<TaskResult> &r : results)
            if (r)
                std::cerr << "cost " << (*r->cost == "null" ? "infeasible" : *r->cost) << "\n";
    return printTaskResults(o, *task, results, loaded->variables, cases->batch);
}

} // namespace zbddc::cli
