// `zbddc run MODEL.uai --task pr|mar` on a UAI MARKOV network (and `--task mpe --route jt`): its
// factor model through a junction tree (runtime/junction_tree/factor_model_route.h), on the CPU
// one case at a time or on the GPU in batches. Where the tree's tables cannot fit, the run is
// refused with their size, or answered by loopy BP with `--route auto --approximate`.
#include "compiler/frontends/factor_model/factor_model.h"
#include "runtime/junction_tree/factor_model_route.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/output.h"

#include <iostream>

namespace zbddc::cli {

namespace {

// No exact route fits: loopy BP where --approximate lets auto take it, else the refusal with the
// size and where to go instead.
int refuse(const RunOptions &o, const std::string &why) {
    if (o.route == "auto" && o.loopy.approximate)
        return runLoopyCommand(o, "auto --approximate: " + why);
    return reportError(errorAt(o.model, 0,
                               why + "; no exact route fits: --route lbp (or --route auto "
                                     "--approximate) answers approximately"));
}

} // namespace

int runFactorModelCommand(const RunOptions &o) {
    const auto task = parseTask(o.task.empty() ? "pr" : o.task);
    if (!task || *task == Task::Eval) {
        std::cerr << "zbddc: the junction-tree route answers --task pr, mar or mpe\n";
        return 2;
    }
    ReadOptions read;
    read.strict = o.modelOptions.strict;
    auto model = readFactorModelFile(o.model, read);
    if (!model)
        return reportError(model.error());
    printWarnings(model->warnings);
    const double memory = physicalMemoryBytes() / 2;
    if (auto why = junctionTreeSurelyTooLarge(*model, memory))
        return refuse(o, *why);
    auto order = chooseOrder(model->domainSizes, model->sortedScopes(), o.costNetwork.order,
                             "search", o.searchMs);
    if (!order)
        return reportError(order.error());
    auto cases = evidenceCases(o, model->variables);
    if (!cases)
        return reportError(cases.error());
    auto run = junctionTreeRunOptions(o, singleCaseRunsOnCpu(cases->cases.size()));
    if (!run)
        return reportError(run.error());
    FactorModelTreeOptions options{*run, memory};
    const std::vector<Variable> variables = model->variables;
    auto tree = openFactorModelJunctionTree(std::move(*model), order->order, options);
    if (!tree)
        return refuse(o, tree.error().message);
    const std::string why = o.route == "jt"
                                ? "asked for (--route jt)"
                                : "auto: the junction tree answers " +
                                      std::string(taskName(*task)) + " on a Markov network exactly";
    std::vector<Result<TaskResult>> results = tree->run(*task, cases->cases);
    for (Result<TaskResult> &r : results)
        if (r) {
            r->route = "jt";
            r->routeWhy = why;
        }
    if (!o.json)
        std::cerr << "zbddc: note: route jt: " << why << "\n";
    return printTaskResults(o, *task, results, variables, cases->batch);
}

} // namespace zbddc::cli
