// The run of a MultiDevicePlan (multi_device_plan.h) over devices seen through two small
// interfaces, so that the orchestration runs and is tested without a GPU: a SliceDevice holds one
// row range per table and runs tasks; a DeviceFabric copies rows between devices (on GPUs:
// device-to-device copies where two logical devices share a GPU, NCCL or peer copies between GPUs:
// tensor_gpu_multi.h). Two ways to run it:
//   - level by level: reserves, uploads and device-to-device moves, then every device's tasks
//     launched before any is waited for, so the devices work at once, then the downloads of what
//     they computed and the releases. The host waits for every level; a device holds at once only
//     what its live tables need.
//   - ordered: every range the plan ever reserves is held from the start (heldToEnd) with the
//     inputs' rows uploaded at once, and the levels' moves and tasks are only enqueued, the devices
//     and the fabric keeping their order (a copy after the work that computed its rows, a task
//     after the copies it reads), so the host waits once, at the end. It needs the devices to hold
//     every range to the end; the multi-GPU executor takes it where they fit.
#pragma once

#include "backends/tensor/cuda/plan/multi_device_plan.h"

#include <functional>
#include <span>
#include <vector>

namespace zbddc {

class SliceDevice {
  public:
    virtual ~SliceDevice() = default;
    // The device's range of `table` becomes `rows`, keeping the rows it held.
    virtual Status reserve(uint32_t table, RowSpan rows) = 0;
    // The device holds no row of `table` any more.
    virtual Status release(uint32_t table) = 0;
    // Copies of `values.size()` rows from row `firstRow` of the table: an upload may still be in
    // flight on return (the values are copied first), done before the device's next tasks run or
    // wait() returns; a download is complete on return.
    virtual Status upload(uint32_t table, uint64_t firstRow, std::span<const double> values) = 0;
    virtual Status download(uint32_t table, uint64_t firstRow, std::span<double> values) = 0;
    // Enqueues the tasks (one level's, this device's) and returns; wait() blocks until they and
    // every upload are done.
    virtual Status launch(std::span<const DeviceTask> tasks) = 0;
    virtual Status wait() = 0;
    // An ordered run's first call: the device holds each of `ranges` (its own, each table once)
    // to the end, and receives the rows of those of input tables from `inputs` (dense, by table
    // id; empty for computed tables), as upload() does. By default, reserve and upload each.
    virtual Status holdAll(std::span<const TableReserve> ranges,
                           std::span<const std::vector<double>> inputs);
    // An ordered run's second call: the device's tasks of every level (empty where it has none),
    // which launch() then gets level by level, so their launches may be prepared at once (input
    // lists, fused launches). By default nothing is.
    virtual Status prepareLevels(std::span<const std::vector<DeviceTask>> levels) {
        (void)levels;
        return Ok{};
    }
};

class DeviceFabric {
  public:
    virtual ~DeviceFabric() = default;
    // Device-to-device moves (no kHost end), complete on return; one level's may run at once.
    virtual Status copy(std::span<const TableMove> moves) = 0;
    // An ordered run's moves: enqueued after the work the sources' devices have been given so far
    // and before what the destinations are given next; returns before they are done. By default,
    // copy() (complete on return, so in order too).
    virtual Status enqueue(std::span<const TableMove> moves) { return copy(moves); }
};

struct MultiDeviceStats {
    // An ordered run's moves overlap its tasks: their time is in computeMs and peerMs stays 0.
    double uploadMs = 0, peerMs = 0, computeMs = 0, downloadMs = 0;
    bool ordered = false;
};

// Work the caller enqueues once every level is (a solve's VALUE phase), before the run waits: in
// an ordered run the devices may still be computing.
using BeforeWait = std::function<Status()>;

// Computed tables by id, inputs empty: the layout of runTensorProgramCpu.
Result<std::vector<std::vector<double>>>
runTensorProgramMultiDevice(const TensorProgram &program, const MultiDevicePlan &plan,
                            std::span<SliceDevice *const> devices, DeviceFabric &fabric,
                            MultiDeviceStats *stats = nullptr, bool ordered = false,
                            const BeforeWait &beforeWait = {});

} // namespace zbddc
