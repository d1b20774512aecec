// ZBDD size of the compiled MLF per network and variable-ordering heuristic (Minato et al. 2007's
// sink-DFS order, our min-fill order, our frontier-searched order; mlf_order.h).
// Usage: mlf_order [--node-limit N] [--time-limit S] [--orders paper,minfill,frontier]
//                  [--schedule balanced|sequential] [--theta-bottom] [--verbose] NETWORK...
// Prints one table row per network and ordering. Each compilation runs in a child process that
// is killed after the time limit, so the bench never hangs; networks that exceed the node limit
// or the time are listed with the reason. est10 is log10 of the frontier estimate
// (mlf_frontier.h) of the order, width10 log10 of its widest cut; typeA, typeB and path are the
// Minato et al. 2011 op counts and longest path of the lowered circuit.
#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/mlf/mlf_compile.h"
#include "compiler/mlf/mlf_frontier.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using namespace zbddc;

namespace {
double seconds(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Minato et al. 2011's op counts of the lowered circuit, straight from the ZBDD: a node whose lo
// child is the 0 terminal becomes a typeB op (f(hi)·x), any other a typeA op (f(hi)·x + f(lo)); the
// circuit's longest path is the ZBDD's longest chain of nodes (zdd_lower.h). Lets the table be
// filled for networks too large to lower and run through the pass pipeline in `zbddc stats`.
struct SeedOps {
    size_t typeA = 0, typeB = 0, longestPath = 0;
};

SeedOps seedOps(const ZddModel &model) {
    SeedOps ops;
    std::vector<size_t> depth(model.nodes.size() + 2, 0); // terminals: 0
    for (size_t i = 0; i < model.nodes.size(); ++i) { // children first
        const ZddNode &n = model.nodes[i];
        ++(n.lo == kZddEmpty ? ops.typeB : ops.typeA);
        depth[ZddModel::idOf(i)] = 1 + std::max(depth[n.lo], depth[n.hi]);
        ops.longestPath = std::max(ops.longestPath, depth[ZddModel::idOf(i)]);
    }
    return ops;
}

// One compilation, printed as one row (in the child process).
void compileRow(const std::string &name, const BayesNet &net, MlfOptions options,
                bool verbose) {
    const char *order = mlfOrderingName(options.ordering);
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<uint32_t> vars = mlfVariableOrder(net, options.ordering);
    const double orderSecs = seconds(t0);
    const double est = frontierLogCost(net, vars) / std::log(10.0);
    const double width = frontierLogWidth(net, vars) / std::log(10.0);
    // On stderr at once, so a compilation killed by the time limit still says where time went.
    std::fprintf(stderr, "%s %s: order in %.2f s (est10 %.1f, width10 %.1f)\n", name.c_str(),
                 order, orderSecs, est, width);
    if (verbose)
        options.progress = [&](size_t i, size_t count, uint32_t v, size_t nodes) {
            std::fprintf(stderr, "  %zu/%zu %-20s %10zu nodes %8.2f s\n", i + 1, count,
                         net.variables[v].name.c_str(), nodes, seconds(t0));
        };
    options.variableOrder = vars;
    MlfStats stats;
    auto model = compileMlf(net, options, &stats);
    const double secs = seconds(t0);
    if (!model) {
        std::printf("%-12s %-9s %6zu %6.1f %6.1f  failed after %.1f s: %s\n", name.c_str(), order,
                    net.variables.size(), est, width, secs, model.error().message.c_str());
        return;
    }
    const SeedOps ops = seedOps(*model);
    std::printf("%-12s %-9s %6zu %6.1f %6.1f %7zu %7zu %11zu %11zu %11.4g %8.2f %8.2f %10zu "
                "%10zu %6zu\n",
                name.c_str(), order, net.variables.size(), est, width, stats.zbddVars,
                stats.parameters, stats.nodes, stats.peakNodes, stats.terms, orderSecs, secs,
                ops.typeA, ops.typeB, ops.longestPath);
}
} // namespace

int main(int argc, char **argv) {
    MlfOptions options;
    double timeLimit = 300;
    bool verbose = false;
    std::vector<MlfOrdering> orders{MlfOrdering::Paper, MlfOrdering::MinFill,
                                    MlfOrdering::Frontier};
    int i = 1;
    for (; i < argc && std::strncmp(argv[i], "--", 2) == 0; ++i) {
        const std::string flag = argv[i];
        if (flag == "--theta-bottom") {
            options.thetaAtBottom = true;
            continue;
        }
        if (flag == "--verbose") { // per-CPT product sizes on stderr
            verbose = true;
            continue;
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "%s needs a value\n", flag.c_str());
            return 1;
        }
        const std::string value = argv[++i];
        if (flag == "--node-limit")
            options.nodeLimit = std::stoull(value);
        else if (flag == "--schedule")
            options.schedule =
                value == "sequential" ? MlfSchedule::Sequential : MlfSchedule::Balanced;
        else if (flag == "--time-limit")
            timeLimit = std::stod(value);
        else if (flag == "--orders") {
            orders.clear();
            for (const char *o : {"paper", "minfill", "frontier"})
                if (value.find(o) != std::string::npos)
                    orders.push_back(o[0] == 'p'   ? MlfOrdering::Paper
                                     : o[0] == 'm' ? MlfOrdering::MinFill
                                                   : MlfOrdering::Frontier);
        } else {
            std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
            return 1;
        }
    }
    std::printf("%-12s %-9s %6s %6s %6s %7s %7s %11s %11s %11s %8s %8s %10s %10s %6s\n",
                "network", "order", "bnvars", "est10", "width10", "zvars", "params", "nodes",
                "peak", "terms", "order_s", "total_s", "typeA", "typeB", "path");
    std::fflush(stdout);
    for (; i < argc; ++i) {
        std::string name = argv[i];
        name = name.substr(name.find_last_of('/') + 1);
        auto net = readNetworkFile(argv[i]);
        if (!net) {
            std::printf("%-12s %s\n", name.c_str(), net.error().str().c_str());
            continue;
        }
        for (MlfOrdering ordering : orders) {
            options.ordering = ordering;
            const pid_t child = fork();
            if (child == 0) {
                alarm(static_cast<unsigned>(std::ceil(timeLimit)));
                compileRow(name, *net, options, verbose);
                std::fflush(stdout);
                _exit(0);
            }
            int status = 0;
            waitpid(child, &status, 0);
            if (WIFSIGNALED(status))
                std::printf("%-12s %-9s %6zu  killed (%s) after the %.0f s time limit or by memory\n",
                            name.c_str(), mlfOrderingName(ordering), net->variables.size(),
                            strsignal(WTERMSIG(status)), timeLimit);
            std::fflush(stdout);
        }
    }
}
