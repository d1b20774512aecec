#include "pipeline/route_choice.h"
#include "compiler/elimination/elimination_stats.h"
#include "compiler/junction_tree/junction_tree_stats.h"
#include "ir/number_text.h"
#include "pipeline/load_model.h"
#include "pipeline/route_pilot.h"
#include "runtime/junction_tree/factor_model_route.h"

#include <algorithm>

#include <unistd.h>

namespace zbddc::pipeline {

// What a ZBDD node costs in clique entries' work, per device, from both routes timed side by side
// on alarm, hailfinder, water and pathfinder (bench/results/NOTEBOOK.md, "The auto route, per device"; 2,000
// cases, the estimated node counts against the trees' entries). On 16 CPU threads the MLF was
// faster on all four, by 2.9-279x, though its estimated nodes per clique entry ranged to 20
// (pathfinder): a node per case is worth ~1/50 of an entry there. On the H100 the tree was faster
// on all four (2.0-9.6x), water's 43 entries per node included: its kernels stream entries at
// ~30 ps each where the MLF pays ~3 ns per node, so a node is worth ~100 entries. Compiling a
// node (ZBDD, then the CPU loop's build) costs about 12 entries' work once (pathfinder: 1.35 s).
RouteCosts routeCosts(bool onGpu) { return {onGpu ? 100.0 : 1.0 / 50.0, 12.0}; }

double physicalMemoryBytes() {
    return double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
}

Result<FactorModel> readMarkovFactorModel(const ModelFile &model, const ReadingOptions &options) {
    ReadOptions read;
    read.strict = options.strict;
    return readFactorModelFile(model.path, read);
}

namespace {

// A UAI MARKOV network's PR and MAR are sums: its junction tree answers them exactly (bucket
// elimination finds an optimum only).
bool markovSumsAsked(const std::string &path, std::optional<Task> task) {
    return fileExtension(path) == ".uai" && (task == Task::Pr || task == Task::Mar);
}

// What only the compiled circuit has decides auto for the MLF.
const char *circuitOnly(const OpenOptions &o) {
    using C = CircuitOptions::CpuCode;
    return o.task == Task::Eval                   ? "eval reads the circuit's outputs"
           : o.circuit.cpuCode == C::Loop         ? "--cpu-loop runs the compiled circuit"
           : o.circuit.cpuCode == C::Jit          ? "--cpu-jit runs the compiled circuit"
           : o.circuit.optLevel > 0               ? "-O compiles the circuit"
           : o.circuit.hostLevelOps               ? "--host-level-ops cuts the circuit's levels"
           : o.target.numeric != NumericChoice::Auto ? "--numeric chooses the circuit's arithmetic"
           : o.freeInputs                         ? "--inputs sets the circuit's free inputs"
                                                  : nullptr;
}

} // namespace

std::string circuitOnlyOutput(const SaveOptions &save, const ReadingOptions &reading,
                              bool stageOfMlf) {
    return save.optLevel > 0                ? "-O compiles the circuit"
           : !save.semiring.empty()         ? "--semiring chooses the circuit's semiring"
           : save.numeric != "float64"      ? "--numeric chooses the circuit's arithmetic"
           : !save.symbolPrefix.empty()     ? "--symbol-prefix names the circuit's exports"
           : reading.mlfOrder != "frontier" ? "--mlf-order orders the circuit's ZBDD"
           : stageOfMlf                     ? "the output is a stage of the MLF's circuit"
                                            : "";
}

std::optional<std::string> libraryRouteRefusal(const ModelFile &model, const std::string &route) {
    if (route == "auto" || model.kind != ModelKind::NetworkLibrary || !model.networkLibrary)
        return std::nullopt;
    const std::string &held = model.networkLibrary->metadata().route;
    if (held == route)
        return std::nullopt;
    return model.path + " holds route " + held + ", not --route " + route;
}

std::vector<std::string> possibleRoutes(ModelKind kind, const std::string &path,
                                        const std::string &route, std::optional<Task> task,
                                        bool approximate) {
    std::vector<std::string> routes;
    // `name` where it is the route named, or where auto may take it.
    auto take = [&](const char *name, bool byAuto) {
        if (route == "auto" ? byAuto : route == name)
            routes.push_back(name);
    };
    switch (kind) {
    case ModelKind::Zdd:
    case ModelKind::Circuit:
    case ModelKind::ModelLibrary:
        take("mlf", true);
        break;
    case ModelKind::NetworkLibrary:
        take("jt", true);
        take("mlf", false);
        break;
    case ModelKind::ProblemLibrary:
        take("be", true);
        break;
    case ModelKind::Network: // auto weighs the MLF and the tree (chooseRoute)
        take("mlf", true);
        take("jt", true);
        take("be", false);
        take("lbp", approximate);
        break;
    case ModelKind::CostNetwork: {
        const bool sums = markovSumsAsked(path, task);
        if (route == "jt" ? fileExtension(path) == ".uai" : sums)
            take("jt", true);
        take("be", !sums || task == Task::Pr); // PR: its partition function by elimination
        take("lbp", approximate);
        break;
    }
    }
    return routes;
}

Result<RouteChoice> chooseRoute(RouteInput in) {
    const OpenOptions &o = in.options;
    const ModelKind kind = in.model.kind;
    if (o.route != "auto") {
        const RouteKind *route = findRoute(o.route);
        if (!route)
            return error("unknown route '" + o.route + "' (mlf, jt, be, lbp or auto)");
        if (!route->takes(kind))
            return error("route " + o.route + " does not take a " + modelKindName(kind));
        return RouteChoice{route, "asked for (--route " + o.route + ")"};
    }
    if (kind == ModelKind::Zdd)
        return RouteChoice{&kMlfRoute, "a ZBDD compiles into its circuit"};
    if (kind == ModelKind::Circuit)
        return RouteChoice{&kMlfRoute, "a d-DNNF or SDD is a circuit"};
    if (kind == ModelKind::CostNetwork)
        return chooseFactorModelRoute(in.model, o);
    if (!o.circuitOnly.empty())
        return RouteChoice{&kMlfRoute, "auto: " + o.circuitOnly};
    if (const char *flag = circuitOnly(o))
        return RouteChoice{&kMlfRoute, std::string("auto: ") + flag};
    // A network: the choice remembered for this work (route_pilot.h), else both exact routes
    // estimated, the tree first (its build is kept for its run).
    std::vector<Diagnostic> warnings;
    if (auto remembered = rememberedRoute(in, warnings))
        return *remembered;
    std::string treeWhat, mlfWhat;
    auto tree = kJunctionTreeRoute.estimate(in, treeWhat);
    if (!tree)
        return in.model.junctionTree(o.order).error(); // the tree could not be built: why
    auto mlf = kMlfRoute.estimate(in, mlfWhat);
    if (o.approximate && !mlf) {
        const JunctionTreeStats st = junctionTreeStats(**in.model.junctionTree(o.order));
        const double tableBytes = 8 * (st.totalCliqueEntries + st.totalSeparatorEntries);
        if (tableBytes > physicalMemoryBytes() / 2)
            return RouteChoice{&kLoopyRoute,
                               "auto --approximate: the junction tree needs " +
                                   shortestText(tableBytes) + " bytes of tables, the MLF " +
                                   mlfWhat + "; neither fits"};
    }
    char why[320];
    if (!mlf) {
        std::snprintf(why, sizeof why, "auto: the MLF's %s; the junction tree has %s",
                      mlfWhat.c_str(), treeWhat.c_str());
        return RouteChoice{&kJunctionTreeRoute, why, nullptr, 0, true, std::move(warnings)};
    }
    std::snprintf(why, sizeof why,
                  "auto (%s): %zu case(s); estimated work %.3g for the MLF (%s) against %.3g for "
                  "the junction tree (%s)",
                  in.placement.onGpu ? "gpu" : "cpu", o.expectedCases, *mlf, mlfWhat.c_str(),
                  *tree, treeWhat.c_str());
    const bool treeFirst = *tree <= *mlf;
    return RouteChoice{treeFirst ? &kJunctionTreeRoute : &kMlfRoute, why,
                       treeFirst ? &kMlfRoute : &kJunctionTreeRoute,
                       std::max(*tree, *mlf) / std::max(std::min(*tree, *mlf), 1e-300), true,
                       std::move(warnings)};
}

} // namespace zbddc::pipeline
