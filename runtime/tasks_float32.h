// PR and MAR in float32 or log32 (NumericChoice::Float32, Log32), for runTask and runTasks.
#pragma once

#include "runtime/tasks.h"

namespace zbddc {

// The whole batch in one float32 pass (for MAR forward and backward together,
// Model::forwardBackward). A case whose a-priori bound (runtime/float32_bound.h, its analysis kept
// by the model) is at most kFloat32MaxError is answered with that bound; the others, and every
// case on a device without float32 (the CPU), are answered again on the float64 route (Auto's:
// float64, log where it underflows) or in log space for log32, and their device note says why.
std::vector<Result<TaskResult>> runFloat32Tasks(Model &model, Task task,
                                                std::span<const Evidence> cases,
                                                const TaskOptions &options);

} // namespace zbddc
