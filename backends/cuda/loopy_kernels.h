// CUDA C++ source of loopy BP's GPU kernels for one factor graph and plan (compiled by NVRTC,
// backends/cuda/nvrtc.h). Every array is laid out instance-fastest (entry * batch + instance), so
// the threads of one message entry over a batch read and write neighbouring words.
//
// - lbp_sums: a thread per variable and instance: the sums of the messages into each state
//   (finite part and -inf count, as the CPU's message updates keep them);
// - lbp_dp_<g>: the data-parallel design for factor group g — a thread per outgoing message entry
//   and instance, reading the factor entries that agree with it (a running log-sum-exp, or max);
// - lbp_coop_<g>: the thread-cooperative design — a block per factor and instance, its threads
//   splitting the factor's entries, each warp merging into its own partial messages in shared
//   memory (atomic log-add or max), then the warps' partials merged (Piatkowski 2011 §2);
// - lbp_finish: a thread per message and instance: normalise, residual against the current
//   message (the instance's largest kept by an atomic max), damping;
// - lbp_commit: the new messages copied over the current ones for the instances still running.
//
// The group kernels are specialised to their shape (arity, domains, strides, block size), so
// the entry loops have constant bounds.
#pragma once

#include "ir/loopy_gpu_plan.h"

#include <string>

namespace zbddc::cuda {

// Kernel names of group g.
std::string loopyGroupKernel(const LoopyFactorGroup &group, size_t g);

// The whole module: the common kernels and, for every group, the kernel of its design.
std::string loopyKernelSource(const LoopyGpuPlan &plan);

} // namespace zbddc::cuda
