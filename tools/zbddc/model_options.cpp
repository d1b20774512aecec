#include "tools/zbddc/commands.h"

#include <CLI/CLI.hpp>

#include <iostream>

namespace zbddc::cli {

void ModelOptions::addTo(CLI::App &command) {
    command.add_flag("--strict", strict, "Network rows that do not sum to 1 are errors, not warnings");
    command.add_option("--mlf-order", mlfOrder, "ZBDD variable order for networks: frontier, paper or minfill")
        ->check(CLI::IsMember({"frontier", "paper", "minfill"}));
    command.add_option("--zbdd-node-limit", zbddNodeLimit, "Largest ZBDD (nodes) a network may compile into");
}

Result<ZddModel> ModelOptions::load(const std::string &path) const {
    std::vector<Diagnostic> warnings;
    LoadOptions options;
    options.strict = strict;
    options.mlf.ordering = mlfOrder == "paper"     ? MlfOrdering::Paper
                           : mlfOrder == "minfill" ? MlfOrdering::MinFill
                                                   : MlfOrdering::Frontier;
    options.mlf.nodeLimit = zbddNodeLimit;
    options.warnings = &warnings;
    auto zdd = loadZddModel(path, options);
    for (const Diagnostic &w : warnings) {
        Diagnostic shown = w;
        shown.message = "warning: " + w.message;
        std::cerr << shown.str() << "\n";
    }
    return zdd;
}

Result<Circuit> ModelOptions::loadCircuit(const std::string &path) const {
    auto zdd = load(path);
    if (!zdd)
        return zdd.error();
    return lowerVerified(*zdd, path);
}

} // namespace zbddc::cli
