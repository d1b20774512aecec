// MPE answered through a Session on a named route and device, for the tests that set routes
// against each other case by case (tests/pipeline/mpe_tie_rule*_test.cpp).
#pragma once

#include "pipeline/pipeline.h"

#include "tests/catch.hpp"

#include <cmath>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace zbddc::testing {

struct RouteRun {
    std::string name;
    std::vector<Result<TaskResult>> results;
};

inline pipeline::ModelFile modelAt(const std::string &path) {
    auto m = pipeline::readModel(path);
    REQUIRE(m);
    return std::move(*m);
}

// `heuristic` "": the route's own order. The pilot is off, so the route named is the one run.
inline RouteRun answerMpe(pipeline::ModelFile model, const std::string &route, DeviceKind device,
                          const std::string &heuristic, const std::vector<Evidence> &cases) {
    pipeline::OpenOptions options;
    options.route = route;
    options.target.device = device;
    options.order.heuristic = heuristic;
    options.expectedCases = cases.size();
    options.pilot.enabled = false;
    const std::string name = route + " on " + deviceKindName(device) +
                             (heuristic.empty() ? "" : ", " + heuristic);
    auto session = pipeline::Session::open(std::move(model), options);
    if (!session)
        FAIL(name << ": " << session.error().message);
    RouteRun run{name, (*session)->answer(Task::Mpe, cases)};
    for (const std::string &note : (*session)->takeNotes())
        WARN(name << ": " << note);
    return run;
}

struct BundledNetwork {
    std::string path;
    BayesNet network;
};

// A bundled network (tests/data/bn) read, or nothing where the data is not unpacked.
inline std::optional<BundledNetwork> bundledNetwork(const std::string &name) {
    const std::string path = std::string(ZBDDC_BENCHMARKS_DIR) + "/bn/" + name + ".bif";
    if (!std::filesystem::exists(path)) {
        WARN("no " << path);
        return std::nullopt;
    }
    auto read = pipeline::readModel(path);
    REQUIRE(read);
    REQUIRE(read->network);
    return BundledNetwork{path, std::move(*read->network)};
}

// The assignment's weight, recomputed from the factors, is the value the route reported.
inline bool reportedWeight(const FactorModel &model, const TaskResult &r) {
    return std::abs(logWeight(model, r.assignment) - r.log10 * std::log(10.0)) < 1e-9;
}

} // namespace zbddc::testing
