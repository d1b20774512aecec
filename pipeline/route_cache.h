// The route auto's pilot chose for a model (route_pilot.h), remembered in one small file per key:
// the model file's content, the device, the task and the batch's size class, so that the next
// run of the same work compiles only the faster route.
#pragma once

#include "pipeline/route.h"

#include <optional>
#include <string>
#include <vector>

namespace zbddc::pipeline {

struct CachedRoute {
    std::string route; // a name of routeTable()
    std::string why;   // what the pilot measured
};

// The key of a run, or nothing where the model has no file to hash (a model built in memory).
std::optional<std::string> routeCacheKey(const ModelFile &model, const OpenOptions &options,
                                         const Placement &placement);
// The folder of the remembered choices: `pilot.cacheDir`, else route-choice/ in the user's cache.
std::string routeCacheFolder(const PilotOptions &pilot);

// The choice remembered under `key`, or nothing; a file there that is not one is ignored, with a
// warning in `warnings`, and the pilot runs again.
std::optional<CachedRoute> readCachedRoute(const std::string &folder, const std::string &key,
                                           std::vector<Diagnostic> &warnings);
// Written whole or not at all; a cache that cannot be written is no error (the pilot runs again).
void writeCachedRoute(const std::string &folder, const std::string &key, const CachedRoute &route);

} // namespace zbddc::pipeline
