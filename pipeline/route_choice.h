// Which route answers a model: the one asked for, or for auto the cheapest exact route by its
// estimate (route.h's `estimate`), what only one route has deciding first, and with
// `approximate` loopy BP where no exact route fits in memory.
#pragma once

#include "compiler/frontends/factor_model/factor_model.h"
#include "pipeline/route.h"

#include <optional>
#include <string>
#include <vector>

namespace zbddc::pipeline {

struct RouteChoice {
    const RouteKind *route = nullptr;
    std::string why;
    // auto between the MLF and the junction tree, both estimated: the other route, and how many
    // times the chosen one's estimate its estimate is (>= 1); the pilot weighs them (route_pilot.h).
    const RouteKind *runnerUp = nullptr;
    double estimateRatio = 0;
    bool rememberable = false; // auto between the MLF and the tree: remembered (route_pilot.h)
    std::vector<Diagnostic> warnings = {}; // a remembered choice that could not be read
};
Result<RouteChoice> chooseRoute(RouteInput in);
// Auto's choice for a model of factors read as a cost network (factor_model_choice.cpp).
Result<RouteChoice> chooseFactorModelRoute(const ModelFile &model, const OpenOptions &options);

// The routes a run may end in, known before the model is read: `route` where it takes a `kind`
// model at `path` (none where it does not: --route jt on a .wcsp), or those auto may take for
// `task` (loopy BP only with `approximate`). A library answers on the route it was compiled on
// (a network.so: jt, or mlf named). What the command line checks its flags against.
std::vector<std::string> possibleRoutes(ModelKind kind, const std::string &path,
                                        const std::string &route, std::optional<Task> task,
                                        bool approximate);
// Why a network.so read into `model` refuses `route` (it answers only on the route that wrote
// it; "auto" takes that one), or nothing where it takes it or is no network.so.
std::optional<std::string> libraryRouteRefusal(const ModelFile &model, const std::string &route);

// What only the MLF's circuit has among what an output asks (-O, a semiring, an arithmetic, an
// export prefix, a ZBDD order) or a stage of it: the words auto takes the MLF for, or "".
std::string circuitOnlyOutput(const SaveOptions &save, const ReadingOptions &reading,
                              bool stageOfMlf);

// The work constants of the auto choice between the MLF and the junction tree, per device.
struct RouteCosts {
    double mlfNodePerCaseInEntries; // a ZBDD node's work per case, in clique entries'
    double mlfNodeCompileInEntries; // compiling a node, once
};
RouteCosts routeCosts(bool onGpu);

// The physical memory, which an exact route's tables are weighed against (`approximate`).
double physicalMemoryBytes();
// A UAI MARKOV network read again as the factor model its junction tree is built over.
Result<FactorModel> readMarkovFactorModel(const ModelFile &model, const ReadingOptions &options);
// What a refusal of the junction tree of a MARKOV network points to instead.
inline constexpr const char *kNoExactRoute =
    "; no exact route fits: --route lbp (or --route auto --approximate) answers approximately";

} // namespace zbddc::pipeline
