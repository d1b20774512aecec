// Runs a TensorProgram over incomplete tables (Bistaffa et al. 2017 §IV) on one GPU: the kernels of
// incomplete_kernels compiled with NVRTC, launched by the orchestration of incomplete_run.
#pragma once

#include "ir/incomplete_tables.h"

#include <string>
#include <vector>

namespace zbddc::cuda {

struct IncompleteGpuOptions {
    uint64_t maxRows = uint64_t{1} << 28; // refuse a join of more rows (about 40 bytes each)
};

struct IncompleteGpuStats {
    std::string device;
    double compileMs = 0, runMs = 0;
    bool compiledFromCache = false;
};

// Same result as runIncompleteTensorProgramCpu, every computed table incomplete.
Result<std::vector<TableData>> runIncompleteTensorProgramCuda(
    const TensorProgram &program, const IncompleteGpuOptions &options = {},
    IncompleteGpuStats *stats = nullptr);

} // namespace zbddc::cuda
