// CUDA C++ -> PTX with NVRTC, for one GPU architecture, cached on disk by a hash of the source,
// the options and the NVRTC version, so that a second run of the same model compiles nothing
// (jitify's habit). Errors quote the offending line of the generated source.
#pragma once

#include "ir/result.h"

#include <string>
#include <vector>

namespace zbddc::cuda {

struct NvrtcOptions {
    std::string arch = "sm_90";          // the device's own: DeviceInfo::arch()
    std::vector<std::string> extra;      // further nvrtc options, e.g. "-lineinfo"
    bool useCache = true;
    std::string cacheDir;                // empty: $ZBDDC_CACHE_DIR, else ~/.cache/zbddc
};

struct CompiledPtx {
    std::string ptx;
    bool fromCache = false;
    std::string log;                     // NVRTC's warnings, if any
};

// `name` labels the source in messages ("model.cu:123: error ...").
Result<CompiledPtx> compileToPtx(const std::string &source, const std::string &name,
                                 const NvrtcOptions &options = {});

// "13.0"
std::string nvrtcVersion();

// The cache folder in use for these options.
std::string cacheDirectory(const NvrtcOptions &options);

} // namespace zbddc::cuda
