// The partition function Z(e) of a model of weights (a UAI network read as -ln p costs) by bucket
// elimination in the sum-product semiring: the order and size check of every BE run
// (solve_be.h), the rescaled program (compiler/elimination/partition_program.h), and its run on
// the executor named in the options, in one piece where its tables fit the executor's memory,
// else level by level (run_by_levels.h: what lets the GPU take it out of core). Z is answered
// through its logarithm, exact however far beyond a double.
#pragma once

#include "runtime/bucket_elimination/solve_be.h"

namespace zbddc {

struct PartitionAnswer {
    double logZ = 0; // ln Z(e); -infinity where Z(e) = 0
    bool byLevels = false;
    BeStats stats;
    DeviceReport device;
};

// options.evidence slices observed variables out; the solve's other options (order, executor,
// execution, maxTotalEntries) as solveBucketElimination reads them. `byLevels` forces the
// level-by-level run, which is otherwise taken where the program's tables exceed the executor's
// budget (TensorExecutor::memoryBudgetBytes, or execution.gpuBudgetBytes where it is set).
Result<PartitionAnswer> partitionFunction(const CostNetwork &network, const BeOptions &options,
                                          bool byLevels = false);

} // namespace zbddc
