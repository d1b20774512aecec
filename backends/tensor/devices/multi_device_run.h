// The run of a MultiDevicePlan (multi_device_plan.h) as steps (device_steps.h), two ways:
//   - level by level: reserves, uploads and moves, every device's tasks launched before any is
//     waited for, then downloads and releases; a device holds only what its live tables need.
//   - ordered: every range held from the start (heldToEnd), inputs uploaded at once, the levels'
//     moves and tasks only enqueued in the devices' and fabric's order; the host waits once. The
//     GPU executor takes it where every range fits to the end.
#pragma once

#include "backends/tensor/devices/device_steps.h"
#include "backends/tensor/devices/multi_device_plan.h"

#include <span>
#include <vector>

namespace zbddc {

// The plan's steps, downloading only the tables in `fetch` (every computed one where empty); the
// Call step (a solve's VALUE phase) comes once every level is enqueued, before the run waits.
std::vector<DeviceStep> multiDeviceSteps(const MultiDevicePlan &plan, bool ordered,
                                         std::span<const uint32_t> fetch = {});

// One device running every op whole (a GPU's in-core run): the one-device plan's ordered steps,
// levels prepared, the Call step, one wait, then the downloads of program.fetch's tables (none
// with `decode`: the VALUE phase reads them where they are).
std::vector<DeviceStep> inCoreSteps(const TensorProgram &program, bool decode);

} // namespace zbddc
