// `zbddc PROBLEM.wcsp -o problem.so` (also a MARKOV .uai, or a BAYES .uai with --elimination):
// bucket elimination of the problem compiled into a shared object with the C ABI of
// zbdd_problem.h (runtime/bucket_elimination/problem_library.h, backends/tensor/so).
#include "tools/zbddc/cmd_run_cost_network.h"
#include "compiler/elimination/order_file.h"
#include "tools/zbddc/order_flags.h"
#include "tools/zbddc/output.h"
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "runtime/bucket_elimination/problem_library.h"

#include <CLI/CLI.hpp>

#include <iostream>

namespace zbddc::cli {

void addCostNetworkCompileOptions(CLI::App &app, CostNetworkCompileOptions &f) {
    app.add_flag("--elimination", f.elimination,
                 "Compile a BAYES .uai by bucket elimination (MPE) into a problem.so instead of "
                 "its MLF (.wcsp and MARKOV .uai always take this route)");
    f.order.addTo(app, "(problem.so)");
}

bool isCostNetworkCompile(const CompileOptions &o) {
    return isCostNetworkFile(o.input) ||
           (o.costNetwork.elimination && fileExtension(o.input) == ".uai");
}

int compileCostNetworkCommand(const CompileOptions &o) {
    const bool emitC = o.emit == "c";
    if ((fileExtension(o.output) != ".so" && !emitC) || (!o.emit.empty() && !emitC)) {
        std::cerr << "zbddc: a cost network compiles into a problem.so (-o NAME.so) or its C "
                     "(--emit=c) only\n";
        return 2;
    }
    auto net = readCostNetworkFile(o.input);
    if (!net)
        return reportError(net.error());
    const CostNetworkCompileOptions &flags = o.costNetwork;
    BeOptions options;
    options.heuristic = *parseOrderHeuristic(flags.order.heuristicOr("min-fill")); // CLI checked the name
    if (!flags.order.orderFile.empty()) {
        auto order = readOrderFile(flags.order.orderFile, net->numVariables());
        if (!order)
            return reportError(order.error());
        options.order = std::move(*order);
    }
    auto written = writeProblemLibrary(*net, options, o.output, emitC, o.symbolPrefix);
    if (!written)
        return reportError(errorAt(o.input, 0, written.error().message));
    return 0;
}

} // namespace zbddc::cli
