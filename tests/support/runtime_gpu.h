// The runtime's GPU test programs start here: skipped (exit 77, saying why) where no GPU is
// usable, else the GPU's name printed, so a log shows which card answered.
#pragma once

#include "runtime/engine.h"

#include "tests/support/skip.h"

#include <cstdio>

namespace zbddc::testing {

inline bool runtimeGpuPresent() {
    skipProgramUnless(gpuUsable(), "no GPU");
    std::printf("GPU: %s\n", cudaDeviceName().c_str());
    return true;
}

} // namespace zbddc::testing
