// The variants of a GPU run that benchmarks compare, as data: the executors take them from their
// options and read no environment (a program's edge reads ZBDDC_GPU_* once, through
// gpuSwitchesFromVariables in runtime/tensor/tensor_executor.h; docs/cli.md). The defaults are
// the measured choices.
// Host-only: no CUDA here.
#pragma once

#include <optional>
#include <string>

namespace zbddc::cuda {

struct GpuSwitches {
    // In core, one CUDA graph per run. Unset: one-shot runs launch level by level, their capture
    // and instantiation costing more than the launches they save; programs run again and again
    // (a batched junction tree's prepared program) replay one graph where their ops are small
    // (openGpuTensorDevice; bench/results/NOTEBOOK.md,
    // "GPU bucket elimination without table downloads or per-level waits" and later sections).
    std::optional<bool> graphs;
    // Float tables where every value stays exact (narrow_costs.h); false keeps doubles.
    bool narrowCosts = true;
    // Nonempty: the per-op profile (op_profile.h) appended to this file, each op run alone.
    std::string profilePath;
};

} // namespace zbddc::cuda
