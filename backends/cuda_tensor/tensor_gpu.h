// Runs a TensorProgram on one GPU: input tables (sparse ones made complete) uploaded once, one
// NVRTC-compiled module for all op kernels, ops launched level by level (the ops of a level on
// separate streams, so independent buckets overlap), computed tables kept on the device and
// downloaded at the end for the VALUE phase on the host. Output tables are written in chunks of
// at most `chunkRows` rows (the kernels take a row offset).
// Tables beyond device memory (seed 002 §V): when all tables together exceed the budget, the
// executor follows planChunks — tables live on the host, each op's inputs are uploaded while it
// runs, its output is computed chunk by chunk (along its most significant variables) into
// `inFlight` device buffers on as many streams, each chunk copied back while the next computes.
#pragma once

#include "backends/cuda_tensor/chunk_plan.h"
#include "backends/cuda_tensor/tensor_kernels.h"
#include "ir/tensor_program.h"

#include <vector>

namespace zbddc::cuda {

struct GpuExecOptions {
    TensorKernelOptions kernels;
    uint64_t chunkRows = uint64_t{1} << 26;
    double memoryFraction = 0.8; // of the device's total memory usable for tables
    uint64_t memoryBudgetBytes = 0; // nonzero: use this budget instead (tests force out-of-core)
    uint32_t maxInFlight = 4;       // chunk buffers/streams per op when out of core
};

struct GpuExecStats {
    double compileMs = 0, uploadMs = 0, kernelMs = 0, downloadMs = 0;
    bool compiledFromCache = false;
    bool outOfCore = false;
    uint64_t chunks = 0; // kernel launches of the out-of-core path
    std::string device;
};

// Same result layout as runTensorProgramCpu / interpretTensorProgram.
Result<std::vector<std::vector<double>>> runTensorProgramCuda(const TensorProgram &program,
                                                              const GpuExecOptions &options = {},
                                                              GpuExecStats *stats = nullptr);

} // namespace zbddc::cuda
