// CUDA C++ -> PTX or CUBIN with NVRTC, for one GPU architecture, cached on disk by a hash of the
// source, the options, the image kind and the NVRTC version, so that a second run of the same model
// compiles nothing (jitify's habit). Errors quote the offending line of the generated source.
//
// CUBIN where NVRTC knows the device's architecture: NVRTC given a real architecture (sm_XX) runs
// the PTX -> SASS assembler anyway, so taking its CUBIN costs nothing here and spares the driver's
// JIT, which otherwise assembles the same PTX again when the module is loaded (as slow as NVRTC's
// own step, and serial per module). PTX for a virtual architecture where the device is newer than
// NVRTC: the driver compiles that forward.
#pragma once

#include "ir/result.h"

#include <string>
#include <vector>

namespace zbddc::cuda {

struct NvrtcOptions {
    std::string arch = "sm_90";          // the device's own: DeviceInfo::arch()
    std::vector<std::string> extra;      // further nvrtc options, e.g. "-lineinfo"
    bool useCache = true;
    bool cacheOnly = false; // an image the cache holds, else an error: no compile
    std::string cacheDir; // empty: gpuSettings.cacheDir, else ~/.cache/zbddc
};

struct CompiledPtx {
    std::string ptx;
    bool fromCache = false;
    std::string log;                     // NVRTC's warnings, if any
};

// `name` labels the source in messages ("model.cu:123: error ...").
Result<CompiledPtx> compileToPtx(const std::string &source, const std::string &name,
                                 const NvrtcOptions &options = {});

// A module image for the driver (Device::loadModule takes either kind).
struct CompiledImage {
    std::string image;
    bool cubin = false; // SASS for options.arch; else PTX the driver compiles
    bool fromCache = false;
    std::string log;
};
// CUBIN for options.arch where NVRTC supports it (nvrtcSupportsArch), else PTX for the newest
// virtual architecture NVRTC has below it.
Result<CompiledImage> compileForArch(const std::string &source, const std::string &name,
                                     const NvrtcOptions &options = {});

// Whether NVRTC emits SASS for `arch` ("sm_90"): a real architecture it lists as supported.
bool nvrtcSupportsArch(const std::string &arch);

// "13.0"
std::string nvrtcVersion();

// The cache folder in use for these options.
std::string cacheDirectory(const NvrtcOptions &options);

} // namespace zbddc::cuda
