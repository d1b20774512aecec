// The GPU's scheduling passes (Minato et al. 2011 §2): where each level runs (one block or the
// grid), how grid levels are cut into blocks of threads, and which x operands a block copies
// into shared memory first. Host code that reads and writes the Schedule only, so it is built
// (and its passes tested) everywhere; the CUDA backend compiles what they decide.
#pragma once

#include "ir/pass.h"

#include <vector>

namespace zbddc {

void splitPhases(Schedule &, const PipelineOptions &, PassStats &);     // grid / one block
void partitionBlocks(Schedule &, const PipelineOptions &, PassStats &); // blocks and threads
void preloadShared(Schedule &, const PipelineOptions &, PassStats &);   // x tiles in shared memory

// The three as target passes for PipelineOptions::targetPasses: split-phases from schedule level 1,
// partition at every level, preload from level 2.
const std::vector<PassEntry> &gpuSchedulePasses();

// `options` with the GPU's passes added (for callers that build a GPU schedule).
PipelineOptions withGpuPasses(PipelineOptions options);

// Shared memory a CUDA model's kernels may give a block's preloaded tile (of the 48 KiB a block
// has without opt-in, the rest holds the kernels' staged level boundaries).
inline constexpr uint32_t kCudaTileBytes = 40 * 1024;

// What the CUDA backend compiles (backends/cuda/cuda_model.h): the schedule of `level` (0..3) for
// `lanes` batch lanes per launch and blocks of `blockThreads` threads, every level on the device
// (host phases are a cut of the circuit before this, runtime/engine_host_phases.h), levels of at
// most `narrowWork` work items in one block, every value kept
// where a backward pass reads them (`keepValues`). split-phases runs at every level, so -O0 is
// the circuit's own levels, placed. The preload pass runs (from -O2) only with `preload`: on the
// H100 its tiles made every forward pass slower, at one lane and at 512 (bench/results/NOTEBOOK.md, "The
// Schedule as the CUDA backend's one plan"): a tile costs a block barrier, and L1 already serves
// an x that a block's ops read again.
PipelineOptions cudaPipelineOptions(int level, uint32_t lanes, uint32_t blockThreads,
                                    uint32_t narrowWork, bool keepValues, bool preload = false);

} // namespace zbddc
