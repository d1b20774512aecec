// `zbddc INPUT -o OUTPUT`: read a model, write it in the form the output's extension names.
#include "tools/zbddc/cmd_run_cost_network.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/output.h"
#include "pipeline/load_model.h"
#include "compiler/frontends/zdd/zdd_format.h"

#include <iostream>

namespace zbddc::cli {

int compileCommand(const CompileOptions &o) {
    if (!o.symbolPrefix.empty() && (fileExtension(o.output) != ".so" || !o.emit.empty())) {
        std::cerr << "zbddc: --symbol-prefix applies to a .so output only\n";
        return 2;
    }
    if (isCostNetworkCompile(o)) // .wcsp, MARKOV .uai: bucket elimination into a problem.so
        return compileCostNetworkCommand(o);
    const std::string ext = fileExtension(o.output);
    if (isNetworkFile(o.input) && ext == ".so" && o.emit.empty()) {
        if (auto done = compileNetworkByRoute(o)) // the junction tree's network.so
            return *done;
    } else if (!o.route.empty() || o.batch) {
        std::cerr << "zbddc: --route and --batch apply to a network (.bif, .xmlbif, .net, BAYES "
                     ".uai) compiled into a .so\n";
        return 2;
    }
    if (!o.costNetwork.order.orderFile.empty() || !o.costNetwork.order.heuristic.empty()) {
        std::cerr << "zbddc: --order and --heuristic apply to a problem.so (.wcsp, MARKOV .uai, "
                     "BAYES .uai with --elimination) and to a network's junction tree (--route "
                     "jt), not to a network's MLF\n";
        return 2;
    }
    if (!o.semiring.empty() && (ext == ".zdd" || ext == ".txt") && o.emit.empty()) {
        std::cerr << "zbddc: --semiring applies to compiled outputs (.so, --emit), not to '" << ext
                  << "'\n";
        return 2;
    }
    const bool cuda = o.emit == "cu" || o.emit == "ptx";
    const bool cpu = !cuda && (ext == ".so" || !o.emit.empty());
    if (!cpu && !cuda && ext != ".zdd" && ext != ".txt") {
        std::cerr << "zbddc: cannot write '" << o.output
                  << "': unknown output kind (use .so for a compiled model, .zdd for a ZBDD, "
                     ".txt for a circuit dump, or --emit=c|ll|cu|ptx)\n";
        return 2;
    }
    auto zdd = o.model.load(o.input);
    if (!zdd)
        return reportError(zdd.error());
    auto circuit = lowerVerified(*zdd, o.input);
    if (!circuit)
        return reportError(circuit.error());
    if (cpu)
        return compileCpuOutput(o, *circuit);
    if (cuda)
        return compileCudaOutput(o, *circuit);
    Status written = writeFileAtomically(o.output, [&](std::ostream &out) {
        if (ext == ".zdd")
            writeZdd(*zdd, out);
        else
            dump(*circuit, out);
        return bool(out);
    });
    return written ? 0 : reportError(written.error());
}

} // namespace zbddc::cli
