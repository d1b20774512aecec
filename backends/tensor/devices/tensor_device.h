// One device as the step runner (run/device_steps.h) drives it: a GPU or a logical share of one
// (gpu_tensor_device.h), or the tests' emulated device, so every run is tested without a GPU.
// Tables by id, each held over one row range; a task computes a range of an op's output rows.
// Devices keep the order of what they are given, as a stream does. Host-only: no CUDA here.
#pragma once

#include "ir/result.h"
#include "ir/tensor_program.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace zbddc {

struct RowSpan {
    uint64_t first = 0, rows = 0;
    uint64_t end() const { return first + rows; }
    bool contains(RowSpan o) const { return o.rows == 0 || (first <= o.first && o.end() <= end()); }
    bool operator==(const RowSpan &) const = default;
};

// The least span holding both (an empty one holds nothing).
inline RowSpan hull(RowSpan a, RowSpan b) {
    if (a.rows == 0)
        return b;
    if (b.rows == 0)
        return a;
    const uint64_t first = std::min(a.first, b.first);
    return {first, std::max(a.end(), b.end()) - first};
}

inline constexpr int kHost = -1; // a TableMove's end on the host

// The device's range of `table` becomes `rows` (which holds what it held: contents kept).
struct TableReserve {
    uint32_t table = 0, device = 0;
    RowSpan rows;
};
// Rows of a table copied from one holder to another (kHost: from or to the host).
struct TableMove {
    uint32_t table = 0;
    int from = kHost, to = kHost;
    RowSpan rows;
};
// Op `op` computes output rows `out` on `device`; with `elim`, over that range of its eliminated
// values only, ⊕-combined into the rows unless it starts at 0 (out of core, chunk_plan.h).
struct DeviceTask {
    uint32_t op = 0, device = 0;
    RowSpan out;
    RowSpan elim; // empty: every eliminated value
};

// Every output row of op `op`, on device 0.
inline DeviceTask wholeOpTask(const TensorProgram &program, uint32_t op) {
    return {op, 0, {0, program.tables[program.ops[op].output].entries()}, {}};
}

class TensorDevice {
  public:
    virtual ~TensorDevice() = default;
    virtual Status reserve(uint32_t table, RowSpan rows) = 0; // keeps the rows it held
    virtual Status release(uint32_t table) = 0;
    // Copies of `values.size()` rows from row `firstRow` of the table: an upload may still be in
    // flight on return (the values are copied first), done before the device's next tasks run or
    // wait() returns; a download is complete on return.
    virtual Status upload(uint32_t table, uint64_t firstRow, std::span<const double> values) = 0;
    virtual Status download(uint32_t table, uint64_t firstRow, std::span<double> values) = 0;
    // Enqueues the tasks (independent ones: one level's, this device's) and returns; wait() blocks
    // until they and every upload are done.
    virtual Status launch(std::span<const DeviceTask> tasks) = 0;
    virtual Status wait() = 0;
    // An ordered run's first call: the device holds each of `ranges` to the end and receives the
    // input tables' rows from `inputs` (by table id; empty for computed ones).
    virtual Status holdAll(std::span<const TableReserve> ranges,
                           std::span<const std::span<const double>> inputs) {
        for (const TableReserve &r : ranges) {
            if (Status s = reserve(r.table, r.rows); !s)
                return s;
            if (!inputs[r.table].empty())
                if (Status s = upload(r.table, r.rows.first,
                                      inputs[r.table].subspan(r.rows.first, r.rows.rows));
                    !s)
                    return s;
        }
        return Ok{};
    }
    // An ordered run's second call: its tasks of every level, which launch() then gets level by
    // level, so their launches may be prepared at once.
    virtual Status prepareLevels(std::span<const std::vector<DeviceTask>> levels) {
        (void)levels;
        return Ok{};
    }
};

// The links between devices: device-to-device moves of rows (on GPUs: copies where two logical
// devices share a GPU, NCCL or peer copies between GPUs: gpu_fabric.h).
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

} // namespace zbddc
