// The variants of a GPU run, as data: the executors read no environment (a program's edge reads
// ZBDDC_GPU_* once, gpuSwitchesFromVariables; docs/cli.md). The defaults are the measured choices.
#pragma once

#include <optional>
#include <string>

namespace zbddc::cuda {

struct GpuSwitches {
    // In core, one CUDA graph per run. Unset: one-shot runs launch level by level (a capture costs
    // more than it saves); prepared programs replay one graph where their ops are small
    // (openGpuTensorDevice; bench/results/NOTEBOOK.md).
    std::optional<bool> graphs;
    // Float tables where every value stays exact (narrow_costs.h); false keeps doubles.
    bool narrowCosts = true;
    // Nonempty: the per-op profile (op_profile.h) appended to this file, each op run alone.
    std::string profilePath;
};

} // namespace zbddc::cuda
