// The VALUE phase where the tables are: one block, a warp per op of equal depth, decodes the
// optimal assignment from the device tables (value_phase_plan.h, value_phase_kernel.inc), so an
// in-core run downloads the assignment and the optimum (a few bytes per variable), never a table.
// The seeds decode on the host after copying every table back; at 10^8 entries that copy, into
// pageable memory, was most of the run.
#pragma once

#include "backends/cuda/driver.h"
#include "backends/tensor/cuda/plan/value_phase_plan.h"
#include "ir/tensor_program.h"

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace zbddc::cuda {

// The kernel zb_value_phase as NVRTC compiles it.
std::string valuePhaseKernelSource();

// The ⊗ of the result tables (the optimum), with `assignment` (by variable; evidence and defaults
// filled in) completed as recoverAssignment would: the same picks, ties to the first joint value.
// `segments` hold every table the program's reducing ops read, and the result tables, on the
// device: doubles, or floats with `float32` (narrow_costs.h). On `stream`, after the work
// enqueued there before (the program's ops: the host builds the plan meanwhile); returns once the
// assignment is back. `deviceMs` (optional): the device's time from the call to the kernel's end.
// `tied` (optional): whether some op's runner-up lay within the tie tolerance of its pick, as
// recoverAssignment's `tied` (ir/mpe_tie_rule.inc's zb_flags_tie, the host's own comparison).
// `pinned` (optional): page-locked memory for the kernel's arrays, valid until `stream` is waited
// for; without, they go from pageable memory, whose copy the driver may start only once the
// stream's earlier work is done, so the plan's upload and launch wait for the program's ops.
using PinnedStaging = std::function<Result<unsigned char *>(size_t bytes)>;
Result<double> decodeOnDevice(Device &device, const TensorProgram &program,
                              std::vector<TableSegment> segments, std::vector<uint32_t> &assignment,
                              bool float32 = false, StreamHandle stream = nullptr,
                              double *deviceMs = nullptr, bool *tied = nullptr,
                              const PinnedStaging &pinned = {});

// The same for `cases` assignments at once (a batched junction tree's: tables of doubles, each
// whole at `tables[id]`, 0 where absent), one block each (as wide as the plan's widest depth: the
// cases' blocks run side by side anyway, and a block per case keeps each case's steps at the
// DAG's height), all walking one plan: `assignments` holds them one after another
// (program.domainSizes.size() entries each, evidence and the case variable filled in) and returns
// them completed; `pinned`, laid out alike, marks the variables each case keeps
// (recoverAssignment's `pinned`), which reach the device as a bit each. `tied` returns one flag
// per case, as decodeOnDevice's.
Status decodeCasesOnDevice(Device &device, const TensorProgram &program,
                           std::span<const DevicePtr> tables, std::vector<uint32_t> &assignments,
                           const std::vector<uint8_t> &pinned, uint32_t cases,
                           std::vector<uint8_t> &tied);

} // namespace zbddc::cuda
