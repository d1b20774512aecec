#include "tools/zbddc/cli_checks.h"
#include "tools/zbddc/commands.h"
#include "support/progress.h"
#include "tools/zbddc/output.h"
#include "compiler/frontends/circuits/circuit_load.h"

#include <CLI/CLI.hpp>

#include <iostream>

namespace zbddc::cli {

void ModelOptions::addTo(CLI::App &command) {
    command.add_flag("--strict", strict, "Network rows that do not sum to 1 are errors, not warnings");
    command.add_option("--mlf-order", mlfOrder, "ZBDD variable order for networks: frontier, paper or minfill")
        ->check(CLI::IsMember({"frontier", "paper", "minfill"}));
    command.add_option("--zbdd-node-limit", zbddNodeLimit, "Largest ZBDD (nodes) a network may compile into")
        ->check(wholeNumber(true));
    command.add_option("--weights", weights,
                       "Literal weights of a .nnf or .sdd (docs/formats/circuits.md; default 1)");
}

Result<ZddModel> ModelOptions::load(const std::string &path) const {
    if (!weights.empty())
        return errorAt(path, 0, "--weights applies to a d-DNNF (.nnf) or SDD (.sdd) only");
    std::vector<Diagnostic> warnings;
    LoadOptions options;
    options.strict = strict;
    options.mlf.ordering = mlfOrder == "paper"     ? MlfOrdering::Paper
                           : mlfOrder == "minfill" ? MlfOrdering::MinFill
                                                   : MlfOrdering::Frontier;
    options.mlf.nodeLimit = zbddNodeLimit;
    options.warnings = &warnings;
    ProgressLine line("multiplying CPTs into the MLF");
    options.mlf.steps = [&](size_t done, size_t count) { line.update(done, count); };
    auto zdd = loadZddModel(path, options);
    printWarnings(warnings);
    if (!zdd && zdd.error().message.find("ZBDD node limit") != std::string::npos) {
        Diagnostic d = zdd.error(); // the library's words; the flags are the command line's
        d.message += "; --zbdd-node-limit N raises the limit, and --route jt answers networks "
                     "without a ZBDD";
        return d;
    }
    return zdd;
}

Result<Circuit> ModelOptions::loadCircuit(const std::string &path) const {
    if (isLogicCircuitFile(path)) {
        LoadOptions options;
        options.weights = weights;
        return zbddc::loadCircuit(path, options);
    }
    auto zdd = load(path);
    if (!zdd)
        return zdd.error();
    return lowerVerified(*zdd, path);
}

} // namespace zbddc::cli
