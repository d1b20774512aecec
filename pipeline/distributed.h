// A cost network's optimum by DPOP over MPI ranks (runtime/dpop/solve_dpop.h), in place of
// bucket elimination: its order and agents read, and each rank's executor settled, here rather
// than by the command line. Its own library (zbddc_pipeline_distributed), so that what links the
// pipeline alone (the Python module) never links MPI.
#pragma once

#include "pipeline/model_file.h"
#include "pipeline/order_choice.h"
#include "runtime/device.h"
#include "runtime/dpop/solve_dpop.h"
#include "runtime/tasks.h"

#include <string>

namespace zbddc::pipeline {

struct DistributedOptions {
    DeviceKind device = DeviceKind::Auto; // cpu; otherwise each rank's own GPU where it has one
    std::string devices;                  // --devices, as the GPU executor reads it
    double phaseTimeout = 60;             // a rank's longest wait without a message
    OrderOptions order;                   // an order file; the agents' order is min-fill else
    std::string agentsFile;               // the agent of each variable; "": one per variable
    int testExitRank = -1, testSilentRank = -1; // DpopOptions' failure drills
    cuda::GpuSwitches gpuSwitches;        // each rank's GPU variants, as its edge read them
};

struct DistributedAnswer {
    bool reporter = false; // this rank prints the answer (rank 0)
    TaskResult result;     // the optimum, as bucket elimination's would read
    DpopStats stats;
};

// `model`: a .wcsp or MARKOV .uai read (a problem.so is refused).
Result<DistributedAnswer> solveDistributed(const ModelFile &model, const DistributedOptions &o);

} // namespace zbddc::pipeline
