// Bucket elimination end to end: order (computed or given), the size check before anything is
// allocated, the tensor program, its execution on the CPU (or by the reference interpreter), the
// VALUE phase, and the check that the assignment's cost, recomputed from the original tables,
// equals the optimum.
#pragma once

#include "compiler/elimination/elimination_order.h"
#include "compiler/frontends/wcsp/cost_network.h"
#include "runtime/bucket_elimination/host_device_split.h"

#include <string>
#include <vector>

namespace zbddc {

// Cuda: generated kernels on the GPU (only where the build has NVRTC; fails with a message when no
// GPU is present). Auto: Cuda when a GPU is usable, else Cpu. Split: ops below
// `splitThresholdEntries` on the CPU, the others on the GPU, both at work within a level
// (host_device_split.h); Cpu where no GPU is usable.
enum class BeExecutor : uint8_t { Cpu, Reference, Cuda, Auto, Split };

struct BeOptions {
    OrderHeuristic heuristic = OrderHeuristic::MinFill;
    std::vector<uint32_t> order;    // given order (e.g. readOrderFile); empty: use `heuristic`
    std::vector<uint32_t> evidence; // empty, or per variable a value or UINT32_MAX (free)
    BeExecutor executor = BeExecutor::Cpu;
    unsigned threads = 0; // 0: all hardware threads
    bool fuseBuckets = true;
    // Refuse before allocating when all messages together exceed this many entries (8 bytes each).
    double maxTotalEntries = double(uint64_t{1} << 30);
    // Incomplete tables (Bistaffa et al. 2017 §IV; ir/incomplete_tables.h): every table keeps only
    // its rows below the upper bound, on the CPU. The refusal is then per join, by feasible rows.
    bool incompleteTables = false;
    uint64_t maxIncompleteRows = uint64_t{1} << 25;
    // Split: an op whose work (output rows x eliminated values) reaches this runs on the GPU.
    uint64_t splitThresholdEntries = kDefaultSplitThresholdEntries;
};

struct BeStats {
    std::string heuristic; // "given" for an order read from a file
    uint32_t inducedWidth = 0;
    double largestTableEntries = 0;  // largest message
    double largestBucketEntries = 0; // largest joint space of a bucket
    double totalTableEntries = 0;
    size_t ops = 0, levels = 0;
    double orderMs = 0, buildMs = 0, solveMs = 0, tracebackMs = 0, totalMs = 0;
};

struct Solution {
    bool feasible = false;  // false: every assignment reaches the upper bound
    Cost cost = kForbidden; // the optimum (a WCSP's integer cost, or -ln of the MPE)
    std::vector<uint32_t> assignment;
    BeStats stats;
    std::string device = "cpu";
};

Result<Solution> solveBucketElimination(const CostNetwork &network, const BeOptions &options);

} // namespace zbddc
