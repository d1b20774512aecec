// Output layouts that let a chain of sliced buckets stay where it was computed: an input that does
// not lead with an op's cut variable is read whole by every share, so it crosses to every device
// (scale-free-100: 1.17 of 1.30 GB planned to cross). Each op the plan would slice, in program
// order, gets its output rotated to lead with an input's leading variable where the shares then
// read fewer rows, so a chain leads with one variable and each device reads the rows it computed.
// Only computed tables change layout; the executor maps them back (chunk_layout.h).
#pragma once

#include "backends/tensor/devices/multi_device_plan.h"

#include <functional>
#include <optional>

namespace zbddc {

// The program with those layouts, or nothing where no output changes.
std::optional<TensorProgram> relayoutForSlicing(const TensorProgram &program, uint32_t devices,
                                                const MultiDeviceOptions &options);

// The rule is local, so it can move more rows than it saves: of the program and its
// relayoutForSlicing, the plan that moves fewer bytes (the program's on a tie). `planFor` plans
// either; `relaid` holds the relaid program where its plan is returned.
using PlanFor = std::function<Result<MultiDevicePlan>(const TensorProgram &)>;
Result<MultiDevicePlan> planWithSliceLayouts(const TensorProgram &program, uint32_t devices,
                                             const MultiDeviceOptions &options,
                                             const PlanFor &planFor,
                                             std::optional<TensorProgram> &relaid);

} // namespace zbddc
