// auto's pilot between the MLF and the junction tree. Their estimates (route_choice.h) are the
// first filter: a route that cannot fit is never compiled, and where one estimate is far below
// the other it decides alone. The estimate's errors reach 16x (pathfinder's ZBDD overstated) and
// 10x the other way (mildew, where the MLF was taken for a tree 10.4x faster), so within
// `OpenOptions::pilot.band` (32x) both routes are compiled, a few cases are timed on each, and the
// one faster over the whole batch (compile, first case, the rest) is kept. Each choice between
// the two, the estimate's own too, is remembered per model file, device, task and batch size
// (route_cache.h): the next run estimates nothing and compiles that route only.
#pragma once

#include "pipeline/route_choice.h"

#include <memory>
#include <optional>
#include <vector>

namespace zbddc::pipeline {

struct PilotedRoute {
    RouteChoice choice;
    std::unique_ptr<Route> route; // compiled
};

// The choice remembered for this work (model file, device, task, batch size), read before
// anything is estimated: nothing where none is, or auto may not remember (not a network, the task
// unknown, the pilot off). A file there that is not one is ignored with a warning in `warnings`.
std::optional<RouteChoice> rememberedRoute(RouteInput in, std::vector<Diagnostic> &warnings);
// The estimate's own clear choice remembered too, so that the next run skips the estimates.
void rememberRoute(RouteInput in, const RouteChoice &choice);

// Whether the pilot weighs the estimated choice: auto, the task known (the pilot times it), both
// exact routes estimated within the band, and the pilot not turned off.
bool pilotApplies(const RouteChoice &estimated, const OpenOptions &options);

// The faster route, compiled, and why (the times measured); the choice is remembered.
Result<PilotedRoute> pilotRoute(RouteInput in, const RouteChoice &estimated);

} // namespace zbddc::pipeline
