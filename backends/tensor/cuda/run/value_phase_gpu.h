// The VALUE phase where the tables are: one block, a warp per op of equal depth, decodes the
// optimal assignment from the device tables (value_phase_plan.h, value_phase_kernel.inc), so an
// in-core run downloads the assignment and the optimum, never a table (at 10^8 entries copying
// the tables back was most of the run).
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

// The ⊗ of the result tables (the optimum), with `assignment` (evidence and defaults filled in)
// completed as recoverAssignment would, ties to the first joint value. `segments` hold every table
// the reducing ops read and the result tables: doubles, or floats with `float32`. On `stream`,
// after the program's ops (the host builds the plan meanwhile); returns once the assignment is
// back. Optional: `deviceMs`, the device's time to the kernel's end; `tied`, as recoverAssignment's
// (ir/mpe_tie_rule.inc); `pinned`, page-locked memory for the kernel's arrays until `stream` is
// waited for (a copy from pageable memory would wait for the program's ops).
using PinnedStaging = std::function<Result<unsigned char *>(size_t bytes)>;
Result<double> decodeOnDevice(Device &device, const TensorProgram &program,
                              std::vector<TableSegment> segments, std::vector<uint32_t> &assignment,
                              bool float32 = false, StreamHandle stream = nullptr,
                              double *deviceMs = nullptr, bool *tied = nullptr,
                              const PinnedStaging &pinned = {});

// The same for `cases` assignments at once (a batched junction tree's: double tables, each whole
// at `tables[id]`, 0 where absent), a block each, all walking one plan: `assignments` holds them
// one after another (program.domainSizes.size() entries each) and returns them completed;
// `pinned`, laid out alike, marks the variables each case keeps. `tied`: a flag per case.
Status decodeCasesOnDevice(Device &device, const TensorProgram &program,
                           std::span<const DevicePtr> tables, std::vector<uint32_t> &assignments,
                           const std::vector<uint8_t> &pinned, uint32_t cases,
                           std::vector<uint8_t> &tied);

} // namespace zbddc::cuda
