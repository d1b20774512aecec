// Runs a TensorProgram over incomplete tables (Bistaffa et al. 2017 §IV) on one GPU: the kernels of
// incomplete_kernels compiled with NVRTC, launched by the steps of incomplete_run on the GPU's
// TensorDevice (gpu_tensor_device.h).
#pragma once

#include "backends/tensor/cuda/run/incomplete_run.h"

#include <string>
#include <vector>

namespace zbddc::cuda {

using IncompleteGpuOptions = incomplete::DeviceRunOptions;

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
