// Output layouts that let a chain of sliced buckets stay where it was computed. The multi-device
// plan (multi_device_plan.h) cuts a large op's output rows along its leading variables; an input
// that does not lead with the same variable is read whole by every share, so it crosses to every
// device. On scale-free-100 (seed 1, tightness 1.0, min-fill order) two messages sliced along
// variable 44 fed a bucket whose output led with variable 56: of the 1.30 GB planned to cross
// between two devices, 1.17 GB were their rows each device lacked.
//
// For each op the plan would slice, in program order, the output's scope is rotated to lead with
// the leading variable of one of its inputs, where that makes the shares read fewer input rows: an
// input that leads with the cut variable is read in slices, any other whole by every share. A
// chain of sliced buckets then leads with one variable, and the share a device computes reads the
// rows the same device computed for the previous op (the variable cut into the same ranges). Only
// computed tables change layout (their producers write the new one; no data moves); the executor
// maps them back (chunk_layout.h restoreLayouts).
#pragma once

#include "backends/tensor/cuda/plan/multi_device_plan.h"

#include <functional>
#include <optional>

namespace zbddc {

// The program with those layouts, or nothing where no output changes.
std::optional<TensorProgram> relayoutForSlicing(const TensorProgram &program, uint32_t devices,
                                                const MultiDeviceOptions &options);

// The rule is local (an op's inputs, not its consumers), so it can move more rows than it saves:
// of the program and its relayoutForSlicing, the one whose plan moves fewer bytes between
// devices (the program on a tie). `planFor` plans either (its options may depend on the layouts:
// row groups); `relaid` holds the relaid program where its plan is the one returned.
using PlanFor = std::function<Result<MultiDevicePlan>(const TensorProgram &)>;
Result<MultiDevicePlan> planWithSliceLayouts(const TensorProgram &program, uint32_t devices,
                                             const MultiDeviceOptions &options,
                                             const PlanFor &planFor,
                                             std::optional<TensorProgram> &relaid);

} // namespace zbddc
