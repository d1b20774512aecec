// The UAI 2014 MAR instances of the benchmark folder (ZBDDC_BENCHMARKS_DIR "/uai": NAME.uai, its
// .evid, its exact .MAR and pr-reference.tsv's log10 Z) opened on the junction-tree route, with
// the oracles that share no code with it: the competition's marginals, the leaderboard's log10 Z
// and toulbar2's MPE energy (-ln of the optimum, as toulbar2 prints it).
#pragma once

#include "compiler/elimination/elimination_order.h"
#include "compiler/frontends/factor_model/factor_model.h"
#include "compiler/junction_tree/order_search.h"
#include "runtime/evidence.h"
#include "runtime/junction_tree/factor_model_route.h"

#include "tests/catch.hpp"
#include "tests/support/uai_result_reader.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace zbddc::testing {

inline std::string uaiInstancePath(const std::string &name) {
    return std::string(ZBDDC_BENCHMARKS_DIR) + "/uai/" + name + ".uai";
}

inline bool uaiInstancesPresent() {
    return std::filesystem::exists(std::string(ZBDDC_BENCHMARKS_DIR) + "/uai/pr-reference.tsv");
}

// pr-reference.tsv's log10 Z under the instance's evidence, where it has one.
inline std::optional<double> uaiPrReference(const std::string &name) {
    std::ifstream in(std::string(ZBDDC_BENCHMARKS_DIR) + "/uai/pr-reference.tsv");
    std::string instance, value;
    while (in >> instance >> value)
        if (instance == name)
            return std::stod(value);
    return std::nullopt;
}

// The instance's .MAR marginals (6 significant digits), in either result layout.
inline std::optional<std::vector<std::vector<double>>> uaiMarReference(const std::string &name) {
    std::ifstream in(uaiInstancePath(name) + ".MAR");
    if (!in)
        return std::nullopt;
    std::stringstream text;
    text << in.rdbuf();
    if (auto one = readUai2014(text.str(), "MAR"))
        return one->marginals;
    if (auto batch = readUai2010(text.str(), "MAR"); batch && batch->size() == 1)
        return batch->front().marginals;
    return std::nullopt;
}

// toulbar2's MPE energy (-ln of the optimum's weight) on the instance with its evidence, or
// nothing where toulbar2 is absent or does not finish in `seconds`.
inline std::optional<double> toulbar2Energy(const std::string &name, int seconds = 60) {
    const std::string path = uaiInstancePath(name);
    const std::string command =
        "timeout " + std::to_string(seconds) + " toulbar2 '" + path + "' '" + path + ".evid' 2>&1";
    std::unique_ptr<FILE, int (*)(FILE *)> pipe(popen(command.c_str(), "r"), pclose);
    if (!pipe)
        return std::nullopt;
    char line[4096];
    std::optional<double> energy;
    while (std::fgets(line, sizeof line, pipe.get())) {
        double e = 0;
        if (const char *at = std::strstr(line, "energy: ");
            std::strncmp(line, "Optimum:", 8) == 0 && at && std::sscanf(at, "energy: %lf", &e) == 1)
            energy = e;
    }
    return energy;
}

struct OpenedUaiInstance {
    FactorModel model; // a copy, for recomputing answers
    std::unique_ptr<JunctionTreeModel> tree;
    std::vector<Evidence> cases;
};

// The instance on the junction-tree route: a short order search (16 runs), its .evid's cases.
inline OpenedUaiInstance openUaiInstance(const std::string &name, JunctionTreeOptions run) {
    OpenedUaiInstance out;
    auto model = readFactorModelFile(uaiInstancePath(name));
    REQUIRE(model.ok());
    out.model = *model;
    auto cases = readUaiEvidenceFile(uaiInstancePath(name) + ".evid", model->variables);
    REQUIRE(cases.ok());
    out.cases = std::move(cases->cases);
    OrderSearchOptions search;
    search.maxRuns = 16;
    const std::vector<uint32_t> order =
        searchOrder(buildInteractionGraph(model->domainSizes, model->sortedScopes()), search).order;
    auto tree = openFactorModelJunctionTree(std::move(*model), order, {run, 8e9});
    INFO(name << ": " << (tree ? "" : tree.error().str()));
    REQUIRE(tree.ok());
    out.tree = std::make_unique<JunctionTreeModel>(std::move(*tree));
    return out;
}

} // namespace zbddc::testing
