// Which of the two GPU message designs (Piatkowski 2011's data-parallel and thread-cooperative
// loopy BP) each group of factors takes, from the batch size and the factor's size:
//
// - data-parallel: one thread per outgoing message entry and instance, each reading the factor's
//   entries that agree with it — no synchronisation, enough threads once the batch is large;
// - thread-cooperative: one block per factor and instance, T threads splitting the factor's
//   entries and merging their partial messages in shared memory, one partial set per warp; T is
//   the largest power of two (at most 1024, at most the factor's entries) whose partials fit
//   the shared-memory limit.
//
// Factors are grouped by the domain sizes of their scope (one kernel launch per group); a
// flooding iteration runs every group once, so the groups are one level.
#pragma once

#include "compiler/loopy/factor_graph.h"
#include "ir/loopy_gpu_plan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace zbddc {

// The batch size from which data-parallel wins, and the factor size (entries) below which a
// block would idle. Piatkowski 2011 measured the crossover at about 8 instances. On the H100
// (bench/loopy_bp, bench/results/NOTEBOOK.md) data-parallel won at every batch from 1 to 64 on factors up to
// 961 entries (4.3x at one instance of the protein-like model), so blocks are kept for the
// factors where one thread per message entry would walk thousands of entries alone: from 2^14
// entries, a size not measured yet.
inline constexpr uint32_t kLoopyCrossoverBatch = 8;
inline constexpr uint64_t kLoopyCooperativeMinEntries = uint64_t{1} << 14;
inline constexpr uint32_t kLoopySharedBytes = 48 * 1024; // without opting into more

// The plan (ir/loopy_gpu_plan.h) of a factor graph for a batch.
// `designOverride` forces one design (benchmarks); otherwise each group takes the rule above.
LoopyGpuPlan planLoopyGpu(const FactorGraph &graph, uint32_t batch,
                          const LoopyGpuDesign *designOverride = nullptr);
// One line: how many groups take each design, and the block sizes of the cooperative ones.
std::string describeLoopyGpuPlan(const LoopyGpuPlan &plan);

} // namespace zbddc
