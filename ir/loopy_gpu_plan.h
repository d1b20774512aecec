// What loopy BP's GPU kernels are generated from (backends/cuda/loopy_kernels.h): the factors
// grouped by shape, each group in one of Piatkowski 2011's two message designs with its block
// size. compiler/loopy/loopy_design.h decides it; the CUDA backend only reads it.
#pragma once

#include <cstdint>
#include <vector>

namespace zbddc {

enum class LoopyGpuDesign : uint8_t { DataParallel, Cooperative };
inline const char *loopyGpuDesignName(LoopyGpuDesign d) {
    return d == LoopyGpuDesign::DataParallel ? "data-parallel" : "thread-cooperative";
}

struct LoopyFactorGroup {
    std::vector<uint32_t> domains; // of the scope, in order: the group's shape
    std::vector<uint32_t> factors;
    uint64_t entries = 0; // per factor
    LoopyGpuDesign design = LoopyGpuDesign::DataParallel;
    uint32_t threads = 0;     // per block (cooperative) or 256 (data-parallel)
    uint32_t sharedBytes = 0; // cooperative: incoming messages and every warp's partials
};

struct LoopyGpuPlan {
    uint32_t batch = 1;
    std::vector<LoopyFactorGroup> groups;
};

} // namespace zbddc
