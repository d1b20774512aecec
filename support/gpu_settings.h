// Settings of the GPU libraries for the whole process: which NCCL to load and where NVRTC keeps
// its cache. A program's edge (the command line, the Python module, a benchmark's main) sets them
// once, before any GPU work, usually from the environment (docs/cli.md); the libraries below read
// no variable themselves, so a C++ caller decides without one.
#pragma once

#include <cstdint>
#include <cstdlib> // std::getenv, the lookup edges pass
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace zbddc {

// How a circuit's op types reach its GPU kernels (backends/cuda/interpreted_types.cpp): compiled
// into them (NVRTC per circuit), read as data by interpreted kernels whose one module per kernel
// shape serves every circuit from the disk cache, or interpreted until the compiled module, built
// meanwhile on another thread where the cache lacks it, is ready (the default: on an H100 the
// interpreted kernels gave the compiled ones' answers, their first kernels came in 5-23 ms where a
// compile took 0.5-1 s, and their passes took 0.8-2x the compiled ones'; BENCHMARKS.md).
enum class OpTypeKernels : uint8_t { Compiled, Interpreted, InterpretedUntilCompiled };

struct GpuSettings {
    std::string ncclLibrary; // a path to libnccl.so.2; "": libnccl.so.2 on the loader's path
    std::string cacheDir;    // NVRTC's cache; "": ~/.cache/zbddc, else the temporary folder's
    // A circuit's passes in one launch each (backends/cuda/single_launch.h): unset where the
    // circuit fits, true wherever it can, false never (the level kernels).
    std::optional<bool> singleLaunch;
    // How a circuit's op types reach its GPU kernels (OpTypeKernels).
    OpTypeKernels opTypes = OpTypeKernels::InterpretedUntilCompiled;
};

// The process's settings (backends/cuda reads them when it first loads NCCL or compiles).
inline GpuSettings gpuSettings;

// How an edge hands its variables down: the value of a name, or null where it is unset. The edge
// passes std::getenv; a test or an embedding program, a table of its own.
using VariableLookup = std::function<const char *(const char *)>;

// ZBDDC_NCCL, ZBDDC_CACHE_DIR, ZBDDC_SINGLE_LAUNCH and ZBDDC_INTERPRETED_TYPES as `lookup`
// gives them, for an edge to put into gpuSettings.
inline GpuSettings gpuSettingsFromVariables(const VariableLookup &lookup) {
    GpuSettings s;
    if (const char *v = lookup("ZBDDC_NCCL"))
        s.ncclLibrary = v;
    if (const char *v = lookup("ZBDDC_CACHE_DIR"))
        s.cacheDir = v;
    if (const char *v = lookup("ZBDDC_SINGLE_LAUNCH"); v && (*v == '0' || *v == '1'))
        s.singleLaunch = *v == '1';
    if (const char *v = lookup("ZBDDC_INTERPRETED_TYPES")) {
        const std::string_view t = v;
        s.opTypes = t == "0"   ? OpTypeKernels::Compiled
                    : t == "1" ? OpTypeKernels::Interpreted
                               : OpTypeKernels::InterpretedUntilCompiled;
    }
    return s;
}

} // namespace zbddc
