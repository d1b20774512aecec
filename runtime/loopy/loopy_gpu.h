// Loopy BP on the GPU with the kernels of backends/cuda/loopy_kernels.h, each factor group in the
// design the plan chose for it (compiler/loopy/loopy_design.h) or the one forced. Flooding sends every
// message each sweep; residual rounds compute every message and send those whose residual
// reaches kResidualRoundShare of their instance's largest (the CPU's rounds: a factor the CPU
// skips has inputs that did not change, so its update there is the one computed here).
// Each instance stops on its own (its convergence is read back after every sweep); the final
// messages come back to the host, where finishLoopyCase computes beliefs and the Bethe estimate
// exactly as the CPU executor does, so the two answer alike.
#pragma once

#include "compiler/loopy/loopy_design.h"
#include "runtime/loopy/loopy_bp.h"

#include <optional>

namespace zbddc {

struct LoopyGpuRun {
    std::vector<LoopyCase> cases;
    std::string device;   // DeviceInfo::label()
    std::string design;   // describeLoopyGpuPlan
    uint32_t sweeps = 0;  // sweeps run (the slowest instance's)
    double sweepMs = 0;   // device time per sweep (events), kernels and the residual read-back
    double compileMs = 0; // NVRTC (or its cache) and module load
};

// Ok where a GPU and this build's CUDA backend can run it; otherwise why not.
Status loopyGpuUsable();

// `force` makes every group take one design (benchmarks, tests).
Result<LoopyGpuRun> runLoopyBpGpu(const FactorGraph &graph, std::span<const Evidence> cases,
                                  const LoopyOptions &options,
                                  std::optional<LoopyGpuDesign> force = std::nullopt);

} // namespace zbddc
