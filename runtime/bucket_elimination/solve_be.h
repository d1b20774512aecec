// Bucket elimination end to end: order (computed or given), the size check before anything is
// allocated, the tensor program, its run on the executor named in the options (tensor_executor.h),
// the VALUE phase, and the check that the assignment's cost, recomputed from the original tables,
// equals the optimum.
#pragma once

#include "compiler/elimination/elimination_order.h"
#include "compiler/frontends/wcsp/cost_network.h"
#include "runtime/tensor/tensor_executor.h"

#include <optional>
#include <string>
#include <vector>

namespace zbddc {

struct BeOptions {
    OrderHeuristic heuristic = OrderHeuristic::MinFill;
    std::vector<uint32_t> order;    // given order (e.g. readOrderFile); empty: use `heuristic`
    std::vector<uint32_t> evidence; // empty, or per variable a value or UINT32_MAX (free)
    // A name of tensorExecutors() or "auto" (cuda where a GPU is usable, else cpu). "cuda" fails
    // with the reason where no GPU is usable; "split" then runs on the CPU.
    std::string executor = "cpu";
    TensorExecutorOptions execution; // threads, the CPU's incomplete-row limit, split threshold
    bool fuseBuckets = true;
    // Refuse before allocating when all messages together exceed this many entries (8 bytes each).
    double maxTotalEntries = double(uint64_t{1} << 30);
    // Incomplete tables (Bistaffa et al. 2017 §IV; ir/incomplete_tables.h): every table keeps only
    // its rows below the upper bound. The refusal is then per join, by feasible rows.
    bool incompleteTables = false;
};

struct BeStats {
    std::string heuristic; // "given" for an order read from a file
    uint32_t inducedWidth = 0;
    double largestTableEntries = 0;  // largest message
    double largestBucketEntries = 0; // largest joint space of a bucket
    double totalTableEntries = 0;
    size_t ops = 0, levels = 0;
    double orderMs = 0, buildMs = 0, solveMs = 0, tracebackMs = 0, totalMs = 0;
    ExecutionTimes execution; // the executor's own split of solveMs + tracebackMs
};

struct Solution {
    bool feasible = false;  // false: every assignment reaches the upper bound
    Cost cost = kForbidden; // the optimum (a WCSP's integer cost, or -ln of the MPE)
    std::vector<uint32_t> assignment;
    BeStats stats;
    DeviceReport device; // where the program ran
    // Whether another assignment reaches the optimum (SolvedProgram::tied); unset where the
    // executor cannot say.
    std::optional<bool> tied;
};

Result<Solution> solveBucketElimination(const CostNetwork &network, const BeOptions &options);

// The order of a solve (given, or by the options' heuristic over the graph with evidence sliced
// out), its statistics written into `stats`, and the refusal where its messages exceed
// options.maxTotalEntries: what every bucket-elimination run starts with.
Result<std::vector<uint32_t>> planElimination(const CostNetwork &network, const BeOptions &options,
                                              BeStats &stats);

// The check every answer passes: `assignment`'s cost, recomputed from the original tables,
// equals `optimum` (an internal error otherwise).
Status checkAssignmentCost(const CostNetwork &network, const std::vector<uint32_t> &assignment,
                           Cost optimum);

} // namespace zbddc
