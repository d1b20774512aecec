// ZBDD size of the compiled MLF per network and variable-ordering heuristic (Minato et al.'s
// sink-DFS order against our min-fill order). Usage: mlf_order [--node-limit N] NETWORK...
// Prints one table row per network and heuristic; networks that exceed the node limit are listed
// with the error.
#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/mlf/mlf_compile.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

using namespace zbddc;

int main(int argc, char **argv) {
    MlfOptions options;
    int first = 1;
    if (argc > 2 && std::strcmp(argv[1], "--node-limit") == 0) {
        options.nodeLimit = std::stoull(argv[2]);
        first = 3;
    }
    std::printf("%-12s %-8s %6s %7s %9s %12s %12s %14s %9s\n", "network", "order", "bnvars", "zvars",
                "params", "nodes", "peak", "terms", "time_s");
    for (int i = first; i < argc; ++i) {
        std::string name = argv[i];
        name = name.substr(name.find_last_of('/') + 1);
        auto net = readNetworkFile(argv[i]);
        if (!net) {
            std::printf("%-12s %s\n", name.c_str(), net.error().str().c_str());
            continue;
        }
        for (MlfOrdering ordering : {MlfOrdering::Paper, MlfOrdering::MinFill}) {
            options.ordering = ordering;
            MlfStats stats;
            const auto t0 = std::chrono::steady_clock::now();
            auto model = compileMlf(*net, options, &stats);
            const double secs =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (!model) {
                std::printf("%-12s %-8s %6zu  failed after %.1f s: %s\n", name.c_str(),
                            mlfOrderingName(ordering), net->variables.size(), secs,
                            model.error().message.c_str());
                continue;
            }
            std::printf("%-12s %-8s %6zu %7zu %9zu %12zu %12zu %14.6g %9.2f\n", name.c_str(),
                        mlfOrderingName(ordering), net->variables.size(), stats.zbddVars,
                        stats.parameters, stats.nodes, stats.peakNodes, stats.terms, secs);
            std::fflush(stdout);
        }
    }
}
