// Loopy BP as a TensorProgram (compiler/loopy/lower_loopy.h) run sweep after sweep on a tensor
// executor found by name (runtime/tensor/tensor_executor.h: "cpu", "cuda",
// "reference"): the sweep is prepared once, each run's messages swapped in as the next run's
// inputs (buffers exchanged, nothing copied), the per-instance residual read back after every
// sweep (B values). An instance whose residual falls below the tolerance keeps the messages of
// that sweep's start, as the dedicated route's do (the sweep is run again with its weight at 1,
// which keeps them, where other instances go on); the others go on to the iteration limit.
// finishLoopyCase then computes beliefs and the Bethe estimate exactly as for the dedicated route.
// Flooding only: the residual schedule runs on the dedicated messages (loopy_bp.h).
#pragma once

#include "compiler/loopy/lower_loopy.h"
#include "runtime/device.h"
#include "runtime/loopy/loopy_bp.h"

#include <span>
#include <string>
#include <string_view>

namespace zbddc {

// Instances per lowered program, larger batches running as several (not tuned by measurement):
// on the CPU, 64 keep a program's tables small; a GPU wants every instance of a batch in one
// launch, each kernel's rows being messages x instances.
inline constexpr uint32_t kLoopyTensorBatchCpu = 64;
inline constexpr uint32_t kLoopyTensorBatchGpu = 4096;

struct LoopyTensorRun {
    std::vector<LoopyCase> cases;
    DeviceReport device;    // where the executor ran
    uint32_t sweeps = 0;    // sweeps run, re-runs included, over every batch
    // Wall time per sweep of every instance (run, residual read back, swap): the batches run one
    // after the other, so their sweeping time over the most sweeps any batch ran.
    double sweepMs = 0;
    double prepareMs = 0;   // lowering, and the executor's prepare (the GPU: NVRTC)
};

Result<LoopyTensorRun> runLoopyTensor(const FactorGraph &graph, std::span<const Evidence> cases,
                                      const LoopyOptions &options, std::string_view executor);

} // namespace zbddc
