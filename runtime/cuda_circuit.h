// A circuit for the CUDA backend: its Schedule built by the passes for the lanes it will run
// (backends/cuda/schedule/gpu_passes.h: cudaPipelineOptions), then compiled from that schedule,
// the backend's one plan. Builds without NVRTC have none of this (runtime/engine.h says why).
#pragma once

#ifdef ZBDDC_HAVE_CUDA_BACKEND

#include "backends/cuda/cuda_model.h"
#include "ir/circuit.h"
#include "ir/schedule.h"

#include <optional>
#include <string>

namespace zbddc {

// The schedule level a circuit runs at on `lanes` lanes, from the H100's measurements
// (bench/results/NOTEBOOK.md, "Where a batched MLF answer's time goes on the GPU"): batched, -O3's merged
// ops are 1.3–2.0× faster forward and 1.07–1.26× forward+backward than the circuit's own ops; at
// one lane their backward is 1.3–2.2× slower, so one lane keeps the circuit's ops (-O0).
int defaultCudaScheduleLevel(uint32_t lanes);

// The schedule the backend compiles for `options` (its lanes, block size, narrow-level limit and
// whether values are kept for a backward pass), at `level` or the default for its lanes.
Result<Schedule> cudaSchedule(const Circuit &circuit, const cuda::CudaOptions &options,
                              std::optional<int> level = {});

// cudaSchedule, then cuda::compileCuda.
Result<cuda::CudaModel> compileCircuitForCuda(const Circuit &circuit,
                                              const cuda::CudaOptions &options = {},
                                              std::optional<int> level = {});

// --emit=cu / --emit=ptx of the schedule compileCircuitForCuda would compile (no GPU needed).
Result<std::string> emitCircuitCuda(const Circuit &circuit, const cuda::CudaOptions &options,
                                    bool ptx);

} // namespace zbddc

#endif
