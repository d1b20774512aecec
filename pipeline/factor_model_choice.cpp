// Auto's route for a model of factors read as a cost network (a UAI MARKOV or BAYES network, a
// .wcsp), by the tables each exact route would hold: first a bound no order beats (a dense graph
// is refused without a min-fill run, treewidth_bound.h), then one min-fill order, whose cliques a
// junction tree holds and whose messages bucket elimination holds (analyzeOrder gives both).
// PR: the tree where it fits, bucket elimination where only its messages do (a tree's cliques
// hold a variable more than the messages between them). MAR: the tree. MPE: bucket elimination
// where its messages fit its limit, the tree where only the tree fits (Grids_16: min-fill's
// messages 10^9.1 entries, the tree's 1.3e8 bytes).
// Loopy BP only with `approximate`; without it, where no exact route fits, a refusal that says
// the sizes.
#include "compiler/elimination/elimination_stats.h"
#include "compiler/junction_tree/treewidth_bound.h"
#include "pipeline/load_model.h"
#include "pipeline/route_choice.h"
#include "runtime/bucket_elimination/solve_be.h"

#include <cstdio>

namespace zbddc::pipeline {

namespace {

std::string approx(double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", x);
    return text;
}

RouteChoice loopy(const std::string &why) {
    return RouteChoice{&kLoopyRoute, "auto --approximate: " + why};
}

} // namespace

Result<RouteChoice> chooseFactorModelRoute(const ModelFile &m, const OpenOptions &o) {
    const CostNetwork &net = *m.costNetwork;
    const bool weights = fileExtension(m.path) == ".uai" && !net.integerCosts;
    const Task task = o.task.value_or(Task::Mpe);
    if ((task != Task::Mpe && !weights) || task == Task::Eval) {
        if (o.approximate)
            return loopy(std::string("no exact route answers --task ") + taskName(task) +
                         " on a cost network");
        return RouteChoice{&kEliminationRoute, "a cost network takes bucket elimination"};
    }
    // A .wcsp's MPE: bucket elimination, the one exact route of integer costs (incomplete tables
    // included); no estimate to make.
    if (task == Task::Mpe && !weights && !o.approximate)
        return RouteChoice{&kEliminationRoute, "a cost network takes bucket elimination"};
    const double memory = physicalMemoryBytes() / 2;
    const InteractionGraph graph = buildInteractionGraph(net.domainSizes, functionScopes(net));
    const double least = leastLargestCliqueEntries(graph);
    if (8 * least > memory) {
        char why[240];
        std::snprintf(why, sizeof why,
                      "every elimination order holds a table of at least %.3g entries (%.3g "
                      "bytes; degeneracy %u), over half the memory",
                      least, 8 * least, degeneracy(graph));
        if (o.approximate)
            return loopy(why);
        return errorAt(m.path, 0, why + std::string(kNoExactRoute));
    }
    // MAR has the tree alone; its own order search may still find one that fits where min-fill's
    // does not, and refuses with its size otherwise (session.cpp falls back to loopy BP then).
    if (task == Task::Mar)
        return RouteChoice{&kJunctionTreeRoute,
                           "auto: the junction tree answers mar on a Markov network exactly"};
    const OrderStats st = analyzeOrder(graph, greedyOrder(graph, OrderHeuristic::MinFill));
    const double treeBytes = 8 * st.totalCliqueEntries, messageBytes = 8 * st.totalMessageEntries;
    const bool treeFits = treeBytes <= memory, messagesFit = messageBytes <= memory;
    const std::string sizes = "the junction tree needs about " + approx(treeBytes) +
                              " bytes of tables, bucket elimination " + approx(messageBytes) +
                              " (min-fill), against " + approx(memory) + " (half the memory)";
    if (task == Task::Mpe) {
        if (messagesFit && st.totalMessageEntries <= BeOptions{}.maxTotalEntries)
            return RouteChoice{&kEliminationRoute, "a cost network takes bucket elimination"};
        if (treeFits)
            return RouteChoice{&kJunctionTreeRoute,
                               "auto: " + sizes +
                                   "; bucket elimination's messages exceed its "
                                   "limit, the tree fits"};
        if (o.approximate)
            return loopy(sizes);
        return errorAt(m.path, 0,
                       sizes + " (--route jt searches orders beyond min-fill)" + kNoExactRoute);
    }
    // Both fit: the tree, which searches a better order than min-fill, answers a batch of cases
    // in one pass and was faster per case on the CPU too (BENCHMARKS.md, "Markov networks").
    if (treeFits)
        return RouteChoice{&kJunctionTreeRoute, "auto: " + sizes + "; the tree fits"};
    if (messagesFit)
        return RouteChoice{&kEliminationRoute,
                           "auto: " + sizes + "; only bucket elimination's messages fit"};
    if (o.approximate)
        return loopy(sizes);
    return errorAt(m.path, 0,
                   sizes + " (--route jt searches orders beyond min-fill)" + kNoExactRoute);
}

} // namespace zbddc::pipeline
