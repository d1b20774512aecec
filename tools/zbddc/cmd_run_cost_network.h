// The elimination route of the CLI: `zbddc run PROBLEM.wcsp|problem.so --task mpe` (bucket
// elimination to the optimal cost and an optimal assignment), `zbddc PROBLEM -o problem.so`, and
// `zbddc stats PROBLEM`.
#pragma once

#include "tools/zbddc/commands.h"

namespace CLI {
class App;
}

namespace zbddc::cli {

// Whether `run` should take the bucket-elimination route for this model and task.
bool isCostNetworkRun(const RunOptions &options);

// A .wcsp, or a .uai whose first token is MARKOV (a BAYES .uai takes the network route): the
// inputs that only the elimination route reads.
bool isCostNetworkFile(const std::string &path);

// `zbddc PROBLEM -o problem.so` (cmd_compile_cost_network.cpp) and its flags (--elimination for
// a BAYES .uai, --order, --heuristic), registered into `options`.
bool isCostNetworkCompile(const CompileOptions &options);
int compileCostNetworkCommand(const CompileOptions &options);
void addCostNetworkCompileOptions(CLI::App &app, CostNetworkCompileOptions &options);

// `zbddc stats` of such a file (cmd_stats_cost_network.cpp), and the --order / --heuristic flags
// that it and `stats --route jt` share.
int statsCostNetworkCommand(const StatsOptions &options);
void addCostNetworkStatsOptions(CLI::App &stats, OrderFlags &order);

int runCostNetworkCommand(const RunOptions &options);

// Registers the elimination route's own flags (--order, --heuristic, --incomplete-tables,
// --split-threshold) on the run subcommand, into `options`.
void addCostNetworkRunOptions(CLI::App &run, CostNetworkRunOptions &options);

} // namespace zbddc::cli
