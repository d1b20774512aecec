// The per-op profile (GpuSwitches::profilePath): each op launched alone and waited for (the fastest
// of three), one line per op appended to the file: op, kind, level, output rows, eliminated values,
// ms and GB/s (its tables read and written once). A diagnostic of which ops are far from the
// device's bandwidth, not a timing: the ops lose their overlap.
#pragma once

#include "backends/tensor/devices/device_steps.h"
#include "ir/tensor_program.h"

#include <cstdio>
#include <functional>

namespace zbddc::cuda {

// Bytes an op must move at least: its inputs' tables and its output, `valueBytes` an entry.
uint64_t opTableBytes(const TensorProgram &program, uint32_t op, uint64_t valueBytes = 8);

// The profile as steps (device_steps.h) on device 0, each op of each level launched alone and
// waited for, three times; and the StepTargets::timed that appends their lines to `f`.
std::vector<DeviceStep> profileSteps(const TensorProgram &program);
std::function<void(const DeviceStep &, double)> profileLines(std::FILE *f,
                                                              const TensorProgram &program,
                                                              uint64_t valueBytes = 8);

} // namespace zbddc::cuda
