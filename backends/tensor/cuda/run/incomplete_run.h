// Bucket elimination over incomplete tables on a device (Bistaffa et al. 2017 §IV), as steps of the
// step runner (device_steps.h) over a TensorDevice's memory by the byte and kernels by name: op by
// op, with the CPU executor's plan (backends/tensor/cpu/incomplete_plan.h), it launches the kernels
// of incomplete_kernels — per join step the table is uploaded, keyed, radix-sorted by its shared
// variables and grouped; every joined row counts its feasible matches, the counts are scanned into
// offsets and the joined rows written; the eliminating ⊕ sorts by output row and takes each group's
// min. Joined rows stay on the device; each op's output (its feasible rows) comes back to the host,
// where later ops read it and the VALUE phase runs. The first table of an op (its smallest input)
// is filtered (slices) and mapped on the host. The sizes follow from what the kernels compute, so
// an op is one step. Built everywhere; needs no CUDA.
#pragma once

#include "backends/tensor/cuda/run/device_steps.h"
#include "ir/incomplete_tables.h"

#include <vector>

namespace zbddc::incomplete {

struct DeviceRunOptions {
    uint64_t maxRows = uint64_t{1} << 28; // refuse a join of more rows (about 40 bytes each)
};

// One Incomplete step per op, in program order.
std::vector<DeviceStep> incompleteSteps(const TensorProgram &program,
                                        const DeviceRunOptions &options = {});

// Op `op` on `device` (the Incomplete step's work): its feasible rows, ascending, reading the
// computed tables it needs from `computed`.
Result<TableData> runIncompleteOp(TensorDevice &device, const TensorProgram &program, uint32_t op,
                                  const std::vector<TableData> &computed, uint64_t maxRows);

// incompleteSteps run on `device`: same result as runIncompleteTensorProgramCpu with every
// computed table incomplete.
Result<std::vector<TableData>> runIncompleteOnDevice(TensorDevice &device,
                                                     const TensorProgram &program,
                                                     const DeviceRunOptions &options = {});

} // namespace zbddc::incomplete
