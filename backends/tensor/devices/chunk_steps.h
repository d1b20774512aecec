// Tables beyond device memory as steps (device_steps.h) on one device (Bistaffa et al. 2017 §V-B):
// every table lives on the host; per op its resident inputs uploaded whole, per step the sliced
// inputs' rows it reads (inputRange) and its chunk computed, each chunk back to the host after its
// last step.
#pragma once

#include "backends/tensor/devices/chunk_plan.h"
#include "backends/tensor/devices/device_steps.h"

#include <vector>

namespace zbddc {

// `plan` must be out of core and `program`'s.
std::vector<DeviceStep> chunkSteps(const TensorProgram &program, const ChunkPlan &plan);

} // namespace zbddc
