// A run over TensorDevices as data: each planner (host_device_split.h, multi_device_run.h,
// chunk_steps.h) turns its plan into steps, and one runner executes any list on the devices given,
// keeping the host's side (inputs, tables that come back, host ops on the CPU executor).
// Host-only: no CUDA here.
#pragma once

#include "backends/tensor/devices/tensor_device.h"
#include "ir/tensor_program.h"

#include <array>
#include <functional>
#include <span>
#include <vector>

namespace zbddc {

enum class StepKind : uint8_t {
    Reserve,     // device: `table`'s range becomes `rows` (TensorDevice::reserve)
    Release,     // device: `table` let go
    Upload,      // host → device: `rows` of `table` (an input's, or a host op's output)
    Download,    // device → host: `rows` of `table` into its host copy, sized whole on first use
    Launch,      // device: `tasks`, enqueued
    Wait,        // device: until its tasks and uploads are done
    PeerCopy,    // fabric: `moves` between devices, complete on return
    PeerEnqueue, // fabric: `moves` enqueued in the devices' order
    HoldAll,     // device: `ranges` held to the end, the inputs' rows uploaded
    Prepare,     // device: `levels` of its tasks, launched later in this order
    HostOps,     // host: `ops` on the CPU executor
    Call,        // the caller's work (StepTargets::call)
};

// Which figure a step's wall time adds to (StepTimes).
enum class StepClock : uint8_t { Upload, Peer, Compute, Download, None };
inline constexpr size_t kStepClocks = 4;
using StepTimes = std::array<double, kStepClocks>; // milliseconds by StepClock

struct DeviceStep {
    StepKind kind{};
    StepClock clock = StepClock::None;
    uint32_t device = 0, table = 0;
    RowSpan rows;
    std::vector<DeviceTask> tasks;               // Launch
    std::vector<TableMove> moves;                // PeerCopy, PeerEnqueue
    std::vector<TableReserve> ranges;            // HoldAll
    std::vector<std::vector<DeviceTask>> levels; // Prepare
    std::vector<uint32_t> ops;                   // HostOps
};

inline DeviceStep makeStep(StepKind kind, StepClock clock, uint32_t device = 0, uint32_t table = 0,
                           RowSpan rows = {}) {
    DeviceStep s;
    s.kind = kind;
    s.clock = clock;
    s.device = device;
    s.table = table;
    s.rows = rows;
    return s;
}

// What the steps run on: `devices` by index (null where no step names it).
struct StepTargets {
    std::span<TensorDevice *const> devices;
    DeviceFabric *fabric = nullptr;
    unsigned hostThreads = 0;                                 // HostOps (0: every core)
    std::function<Status()> call;                             // Call
    std::function<void(const DeviceStep &, double ms)> timed; // each step's wall time, if given
};

// Runs `steps` in order. Computed tables by id, inputs empty (runTensorProgramCpu's layout): what
// came back and what the host computed. `times` gets each step's wall time added to its clock.
Result<std::vector<std::vector<double>>> runDeviceSteps(const TensorProgram &program,
                                                        std::span<const DeviceStep> steps,
                                                        const StepTargets &targets,
                                                        StepTimes &times);

} // namespace zbddc
