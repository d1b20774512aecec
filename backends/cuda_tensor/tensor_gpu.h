// Runs a TensorProgram on one GPU: input tables (sparse ones made complete) uploaded once, one
// NVRTC-compiled module for all op kernels, ops launched level by level (the ops of a level on
// separate streams, so independent buckets overlap), computed tables kept on the device and
// downloaded at the end for the VALUE phase on the host. Output tables are written in chunks of
// at most `chunkRows` rows (the kernels take a row offset). Every table of the program must fit
// in device memory together: tables beyond device memory (seed 002 §V) are not handled yet and
// are refused with a message before anything is allocated.
#pragma once

#include "backends/cuda_tensor/tensor_kernels.h"
#include "ir/tensor_program.h"

#include <vector>

namespace zbddc::cuda {

struct GpuExecOptions {
    TensorKernelOptions kernels;
    uint64_t chunkRows = uint64_t{1} << 26;
    double memoryFraction = 0.8; // of the device's total memory usable for tables
};

struct GpuExecStats {
    double compileMs = 0, uploadMs = 0, kernelMs = 0, downloadMs = 0;
    bool compiledFromCache = false;
    std::string device;
};

// Same result layout as runTensorProgramCpu / interpretTensorProgram.
Result<std::vector<std::vector<double>>> runTensorProgramCuda(const TensorProgram &program,
                                                              const GpuExecOptions &options = {},
                                                              GpuExecStats *stats = nullptr);

} // namespace zbddc::cuda
