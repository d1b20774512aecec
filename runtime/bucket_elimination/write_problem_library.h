// Bucket elimination of one cost network compiled into a problem.so: orders it, checks what
// bucket elimination will need before anything is allocated, builds the fused bucket program (no
// evidence: the .so takes evidence at solve time) and compiles it (backends/tensor/so).
// runtime/shared_objects/problem_library.h loads the result.
#pragma once

#include "compiler/elimination/elimination_stats.h"
#include "runtime/bucket_elimination/solve_be.h"

#include <string>

namespace zbddc {

// Uses options.heuristic / options.order / options.maxTotalEntries; the rest is for solving.
// `emitC`: write the C source to `path` (and its tables to `path`.tables.bin) instead of a .so;
// `symbolPrefix`: export every function also as PREFIX_problem_... (zbdd_problem.h).
Result<EliminationStats> writeProblemLibrary(const CostNetwork &network, const BeOptions &options,
                                             const std::string &path, bool emitC = false,
                                             const std::string &symbolPrefix = {});

} // namespace zbddc
