// The step every CUDA executor starts with: NVRTC compiles the generated source for the device's
// own architecture (through the PTX cache) and the driver loads it.
#pragma once

#include "backends/cuda/driver.h"
#include "backends/cuda/nvrtc.h"

namespace zbddc::cuda {

struct DeviceModule {
    Module module;
    bool fromCache = false; // the PTX came from the NVRTC disk cache
};

// `options.arch` is replaced by the device's.
Result<DeviceModule> compileForDevice(Device &device, const std::string &source,
                                      const std::string &name, NvrtcOptions options = {});

} // namespace zbddc::cuda
