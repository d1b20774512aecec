// The run of a MultiDevicePlan (multi_device_plan.h) as steps (device_steps.h), two ways:
//   - level by level: reserves, uploads and device-to-device moves, then every device's tasks
//     launched before any is waited for, so the devices work at once, then the downloads of what
//     they computed and the releases. The host waits for every level; a device holds at once only
//     what its live tables need.
//   - ordered: every range the plan ever reserves is held from the start (heldToEnd) with the
//     inputs' rows uploaded at once, and the levels' moves and tasks are only enqueued, the devices
//     and the fabric keeping their order (a copy after the work that computed its rows, a task
//     after the copies it reads), so the host waits once, at the end. It needs the devices to hold
//     every range to the end; the GPU executor takes it where they fit.
#pragma once

#include "backends/tensor/cuda/plan/multi_device_plan.h"
#include "backends/tensor/cuda/run/device_steps.h"

#include <span>
#include <vector>

namespace zbddc {

// The plan's steps, one way or the other, downloading only the tables in `fetch` (every
// computed one where it is empty: TensorProgram::fetch); the Call step (a solve's VALUE phase)
// comes once every level is enqueued, before the run waits: in an ordered run the devices may
// still be computing.
std::vector<DeviceStep> multiDeviceSteps(const MultiDevicePlan &plan, bool ordered,
                                         std::span<const uint32_t> fetch = {});

// One device running every op whole (a GPU's in-core run): the one-device plan's ordered steps —
// every table held from the start with the inputs uploaded at once, the levels prepared and
// launched with no wait between them, the Call step, one wait — then the downloads of
// program.fetch's tables (every computed one where it is empty), none with `decode` (the VALUE
// phase reads them where they are).
std::vector<DeviceStep> inCoreSteps(const TensorProgram &program, bool decode);

} // namespace zbddc
