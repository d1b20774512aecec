// Tables beyond device memory as steps (device_steps.h) on one device (Bistaffa et al. 2017 §V-B):
// every table lives on the host, ops run one after another, each as its ChunkPlan's steps
// (chunk_plan.h). Per op: its resident inputs held and uploaded whole; per step, the rows of each
// sliced input the step reads (inputRange) replace the ones held before, and the chunk's output
// rows are held; the task computes the chunk, over the step's range of eliminated values where
// the plan splits them; after a chunk's last step its rows come back to the host, where later ops
// read them. The op's tables are then let go and the device waited for.
#pragma once

#include "backends/tensor/cuda/plan/chunk_plan.h"
#include "backends/tensor/cuda/run/device_steps.h"

#include <vector>

namespace zbddc {

// `plan` must be out of core and `program`'s.
std::vector<DeviceStep> chunkSteps(const TensorProgram &program, const ChunkPlan &plan);

} // namespace zbddc
