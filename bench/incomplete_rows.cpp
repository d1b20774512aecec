// How many feasible rows each table of bucket elimination over incomplete tables holds (Bistaffa et
// al. 2017 §IV), per op, for an instance and an elimination order: decides whether sparse BE can
// solve it. Runs the CPU incomplete-table executor op by op and stops, saying where, when one join
// would pass --max-rows. Memory is capped (RLIMIT_AS, --max-gib): a probe never takes the machine.
// --ub U prunes at U instead of the file's top (an upper bound as toulbar2's -ub gives one).
// Usage: incomplete_rows [--heuristic NAME] [--max-rows N] [--max-gib G] [--ub U] [--all] FILE
#include "backends/tensor/cpu/incomplete_cpu.h"
#include "compiler/elimination/bucket_program.h"
#include "compiler/elimination/elimination_order.h"
#include "compiler/frontends/wcsp/read_cost_network.h"

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace zbddc;

int main(int argc, char **argv) {
    OrderHeuristic heuristic = OrderHeuristic::MinFill;
    IncompleteExecOptions options;
    double maxGib = 6;
    double ub = 0; // 0: the file's top
    bool all = false;
    std::string file;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--heuristic") && i + 1 < argc) {
            auto h = parseOrderHeuristic(argv[++i]);
            if (!h) {
                std::fprintf(stderr, "unknown heuristic %s\n", argv[i]);
                return 2;
            }
            heuristic = *h;
        } else if (!std::strcmp(argv[i], "--max-rows") && i + 1 < argc) {
            options.maxRows = std::strtoull(argv[++i], nullptr, 10);
        } else if (!std::strcmp(argv[i], "--max-gib") && i + 1 < argc) {
            maxGib = std::atof(argv[++i]);
        } else if (!std::strcmp(argv[i], "--ub") && i + 1 < argc) {
            ub = std::atof(argv[++i]);
        } else if (!std::strcmp(argv[i], "--all")) {
            all = true;
        } else {
            file = argv[i];
        }
    }
    if (file.empty()) {
        std::fprintf(stderr, "usage: incomplete_rows [--heuristic NAME] [--max-rows N] "
                             "[--max-gib G] [--all] FILE\n");
        return 2;
    }
    const rlimit cap{static_cast<rlim_t>(maxGib * (1ull << 30)),
                     static_cast<rlim_t>(maxGib * (1ull << 30))};
    setrlimit(RLIMIT_AS, &cap);
    auto net = readCostNetworkFile(file);
    if (!net) {
        std::fprintf(stderr, "%s\n", net.error().message.c_str());
        return 1;
    }
    std::vector<std::vector<uint32_t>> scopes;
    for (const CostFunction &f : net->functions)
        scopes.push_back(f.scope);
    const InteractionGraph graph = buildInteractionGraph(net->domainSizes, scopes);
    const std::vector<uint32_t> order = greedyOrder(graph, heuristic);
    const OrderStats os = analyzeOrder(graph, order);
    auto program = buildBucketProgram(*net, order);
    if (!program) {
        std::fprintf(stderr, "%s\n", program.error().message.c_str());
        return 1;
    }
    // An upper bound below top (toulbar2's -ub): costs at or above it are pruned as infeasible.
    const double top = ub > 0 ? std::min(ub, net->upperBound) : net->upperBound;
    if (Status s = markIncomplete(*program, top); !s) {
        std::fprintf(stderr, "%s\n", s.error().message.c_str());
        return 1;
    }
    std::printf("%s: %s order, induced width %u, largest complete table 10^%.1f, top %.0f\n",
                file.c_str(), std::string(orderHeuristicName(heuristic)).c_str(), os.inducedWidth,
                std::log10(os.largestMessageEntries), top);
    std::vector<IncompleteOpStats> stats;
    options.stats = &stats;
    options.completeAbove = 2.0; // every table incomplete, to count each one's feasible rows
    const auto t0 = std::chrono::steady_clock::now();
    auto computed = runIncompleteTensorProgramCpu(*program, options);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%6s %6s %10s %14s %14s %10s %9s\n", "op", "arity", "log10 rows", "feasible rows",
                "peak joined", "density", "ms");
    double largestFeasible = 0, largestJoined = 0, totalFeasible = 0;
    for (const IncompleteOpStats &s : stats) {
        const size_t arity = program->tables[program->ops[s.op].output].scope.size();
        largestFeasible = std::max(largestFeasible, double(s.outputRows));
        largestJoined = std::max(largestJoined, double(s.peakJoinedRows));
        totalFeasible += double(s.outputRows);
        if (all || s.entries >= 1e4)
            std::printf("%6u %6zu %10.1f %14llu %14llu %10.2e %9.1f\n", s.op, arity,
                        std::log10(s.entries), (unsigned long long)s.outputRows,
                        (unsigned long long)s.peakJoinedRows,
                        s.entries > 0 ? double(s.outputRows) / s.entries : 0.0, s.ms);
    }
    std::printf("ops run %zu of %zu; largest feasible table %.3g rows, largest join %.3g rows, "
                "all feasible rows %.3g; %.1f s\n",
                stats.size(), program->ops.size(), largestFeasible, largestJoined, totalFeasible,
                secs);
    if (!computed) {
        std::printf("stopped: %s\n", computed.error().message.c_str());
        return 0;
    }
    const double optimum = programResultOf(*program, *computed);
    std::printf("optimum %.0f%s (cpu, 1 thread, %.1f s)\n", optimum,
                optimum < top ? "" : " (none below the bound)", secs);
    return 0;
}
