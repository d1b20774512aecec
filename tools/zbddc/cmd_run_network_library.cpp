// `zbddc run net.so --task pr|mar|mpe [--evidence F] [--json]`: a network .so answering through
// the C ABI of zbdd_network.h (runtime/network_library.h), whichever route wrote it; it prints
// what `zbddc run NET` prints on that route.
#include "runtime/network_library.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/output.h"

#include <iostream>

namespace zbddc::cli {

int runNetworkLibraryCommand(const RunOptions &o) {
    const auto task = parseTask(o.task.empty() ? "pr" : o.task);
    if (!task || *task == Task::Eval) {
        std::cerr << "zbddc: a network .so answers --task pr, mar or mpe\n";
        return 2;
    }
    if (!o.inputs.empty() || o.optLevel > 0 || o.cpuLoop || o.cpuJit || o.numeric != "auto") {
        std::cerr << "zbddc: --inputs, -O, --cpu-loop, --cpu-jit and --numeric do not apply to a "
                     "network .so (its code is compiled)\n";
        return 2;
    }
    auto lib = NetworkLibrary::open(o.model);
    if (!lib)
        return reportError(lib.error());
    const std::string &route = lib->metadata().route;
    if (o.route != "auto" && o.route != route) {
        std::cerr << "zbddc: " << o.model << " holds route " << route << ", not --route " << o.route
                  << "\n";
        return 2;
    }
    if (o.device != "auto" && o.device != "cpu")
        std::cerr << "zbddc: note: a network .so runs its own compiled CPU code; --device "
                  << o.device << " is ignored\n";
    const std::vector<Variable> &variables = lib->metadata().variables;
    auto cases = evidenceCases(o, variables);
    if (!cases)
        return reportError(cases.error());
    std::vector<Result<TaskResult>> results = lib->run(*task, cases->cases);
    for (Result<TaskResult> &r : results)
        if (r) {
            r->route = route;
            r->routeWhy = "compiled into " + o.model;
        }
    return printTaskResults(o, *task, results, variables, cases->batch);
}

} // namespace zbddc::cli
