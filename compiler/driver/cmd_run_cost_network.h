// `zbddc run PROBLEM.wcsp --task mpe`: the elimination route — bucket elimination to the optimal
// cost and an optimal assignment.
#pragma once

#include "compiler/driver/commands.h"

namespace CLI {
class App;
}

namespace zbddc::driver {

// Whether `run` should take the bucket-elimination route for this model and task.
bool isCostNetworkRun(const RunOptions &options);

int runCostNetworkCommand(const RunOptions &options);

// Registers the elimination route's own flags (--order, --heuristic) on the run subcommand.
void addCostNetworkRunOptions(CLI::App &run);

} // namespace zbddc::driver
