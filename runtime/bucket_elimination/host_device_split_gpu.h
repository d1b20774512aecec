// runTensorProgramSplit with the GPU as its device (only in builds with the CUDA tensor backend).
#pragma once

#include "runtime/bucket_elimination/host_device_split.h"

#include <string>

namespace zbddc {

// Plans the split at `thresholdEntries`, opens a GPU session when any op goes to the device, and
// runs; `device` receives a description of what ran where.
Result<std::vector<std::vector<double>>> runSplitOnGpu(const TensorProgram &program,
                                                       uint64_t thresholdEntries,
                                                       unsigned hostThreads, std::string &device);

} // namespace zbddc
