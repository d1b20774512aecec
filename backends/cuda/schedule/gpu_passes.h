// The GPU's scheduling passes (Minato et al. 2011 §2): where each level runs (host, one block,
// the grid), how grid levels are cut into blocks of threads, and which x operands a block copies
// into shared memory first. Host code that reads and writes the Schedule only, so it is built
// (and its passes tested) everywhere; the CUDA backend compiles what they decide.
#pragma once

#include "ir/pass.h"

#include <vector>

namespace zbddc {

void splitPhases(Schedule &, const PipelineOptions &, PassStats &);    // host / grid / one block
void partitionBlocks(Schedule &, const PipelineOptions &, PassStats &); // blocks and threads
void preloadShared(Schedule &, const PipelineOptions &, PassStats &);   // x tiles in shared memory

// The three as target passes for PipelineOptions::targetPasses: split-phases from schedule level 1,
// partition at every level, preload from level 2.
const std::vector<PassEntry> &gpuSchedulePasses();

// `options` with the GPU's passes added (for callers that build a GPU schedule).
PipelineOptions withGpuPasses(PipelineOptions options);

} // namespace zbddc
