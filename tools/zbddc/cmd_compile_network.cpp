// `zbddc NET -o net.so [--route mlf|jt|auto]`: a Bayesian network into the .so of the route that
// `zbddc run NET` would take for one case — the junction tree's network.so here
// (runtime/junction_tree/junction_tree_library.h), or the MLF's model.so (cmd_compile_cpu.cpp).
// Either answers PR, MAR and MPE over batches through the C ABI of zbdd_network.h; stderr says
// which route was written and why.
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/moral_graph.h"
#include "runtime/junction_tree/junction_tree_library.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/output.h"

#include <iostream>

namespace zbddc::cli {

namespace {

// Flags that only the MLF's circuit has: under auto they decide for it, with jt they are errors.
const char *circuitFlag(const CompileOptions &o) {
    return o.optLevel > 0                   ? "-O compiles the circuit"
           : !o.semiring.empty()            ? "--semiring chooses the circuit's semiring"
           : o.numeric != "float64"         ? "--numeric chooses the circuit's arithmetic"
           : !o.symbolPrefix.empty()        ? "--symbol-prefix names the circuit's exports"
           : o.model.mlfOrder != "frontier" ? "--mlf-order orders the circuit's ZBDD"
                                            : nullptr;
}

} // namespace

std::optional<int> compileNetworkByRoute(const CompileOptions &o) {
    const std::string route = o.route.empty() ? "auto" : o.route;
    const char *flag = circuitFlag(o);
    if (route == "jt" && flag) {
        std::cerr << "zbddc: --route jt writes a junction tree; " << flag << " (--route mlf)\n";
        return 2;
    }
    if (route != "jt" && o.batch) {
        std::cerr << "zbddc: --batch applies to --route jt\n";
        return 2;
    }
    // With the MLF, compileCommand names --order/--heuristic as flags that do not apply.
    const bool orderFlags =
        !o.costNetwork.order.orderFile.empty() || !o.costNetwork.order.heuristic.empty();
    if (route == "mlf" || (route == "auto" && flag)) {
        if (orderFlags)
            return std::nullopt;
        std::cerr << "zbddc: note: route mlf: "
                  << (route == "mlf" ? std::string("asked for (--route mlf)")
                                     : std::string("auto: ") + flag)
                  << "\n";
        return std::nullopt;
    }
    ReadOptions read;
    read.strict = o.model.strict;
    auto net = readNetworkFile(o.input, read);
    if (!net)
        return reportError(net.error());
    auto order = chooseOrder(networkDomainSizes(*net), familyScopes(*net), o.costNetwork.order,
                             "search", 1000);
    if (!order)
        return reportError(order.error());
    auto tree = buildJunctionTree(*net, order->order);
    if (!tree)
        return reportError(errorAt(o.input, 0, tree.error().message));
    const RouteChoice choice =
        chooseNetworkRoute(route, o.model.zbddNodeLimit, *net, junctionTreeStats(*tree), 1,
                           false); // a .so runs on the CPU
    if (!choice.junctionTree) {
        if (!orderFlags)
            std::cerr << "zbddc: note: route mlf: " << choice.why << "\n";
        return std::nullopt;
    }
    printWarnings(net->warnings);
    JunctionTreeLibraryOptions options;
    options.batch = o.batch;
    auto written = writeJunctionTreeLibrary(*net, *tree, o.output, options);
    if (!written)
        return reportError(errorAt(o.input, 0, written.error().message));
    std::cerr << "zbddc: note: route jt: " << choice.why << "; " << o.output << " answers "
              << written->batch << " case(s) per run\n";
    return 0;
}

} // namespace zbddc::cli
