// The step every CUDA executor starts with: NVRTC compiles the generated source for the device's
// own architecture (through the disk cache) and the driver loads it — SASS (CUBIN) where NVRTC
// knows the architecture, so that loading runs no JIT, else PTX (nvrtc.h: compileForArch).
#pragma once

#include "backends/cuda/driver.h"
#include "backends/cuda/nvrtc.h"

namespace zbddc::cuda {

struct DeviceModule {
    Module module;
    bool fromCache = false; // the image came from the NVRTC disk cache
    bool cubin = false;     // loaded as SASS (no driver JIT)
};

// `options.arch` is replaced by the device's. A CUBIN the driver refuses (a driver older than the
// toolkit's ELF format, say) is compiled again as PTX, which such a driver may still JIT.
Result<DeviceModule> compileForDevice(Device &device, const std::string &source,
                                      const std::string &name, NvrtcOptions options = {});

} // namespace zbddc::cuda
