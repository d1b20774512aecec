// Bucket elimination over several devices of one host: which device runs what, and which table
// rows cross between devices, decided on the host before anything is allocated.
//
// The ops of a level are independent buckets; each goes whole to the least-loaded device (longest
// processing time first, Graham 1969). An op whose work (output rows × eliminated values) reaches
// a threshold, or whose tables exceed one device's budget, is sliced across every device along its
// leading output variables: device i computes a contiguous range of output rows and receives only
// the input rows that range reads — the out-of-core planner's slicing (chunk_plan.h, Bistaffa et
// al. 2017 §III-A) with a device per slice instead of a step per slice.
//
// A device needing rows it lacks grows its range (one per table, tensor_device.h) and receives the
// missing rows — from the host for input tables, otherwise from the devices that computed them.
// Each piece a task computes goes to the host after its level, and a device lets a table go after
// the last level that reads it there. Or, where the VALUE phase decodes on the devices
// (keepForDecode), nothing goes to the host: every device keeps the rows it computed, and device 0
// every input table whole, to the end (decodeHoldings). A pure function of the program's shape.
#pragma once

#include "backends/tensor/cuda/device/tensor_device.h"
#include "backends/tensor/cuda/plan/chunk_plan.h"
#include "ir/tensor_program.h"

#include <cstdint>
#include <vector>

namespace zbddc {

struct MultiDeviceOptions {
    // Ops with at least this much work are sliced across the devices. Unmeasured default: large
    // enough that one slice keeps a GPU busy for milliseconds (bench/wcsp_be --devices).
    uint64_t sliceThresholdEntries = uint64_t{1} << 26;
    uint64_t deviceBudgetBytes = 0; // nonzero: an op needing more bytes than this is sliced too
    // Inputs this small go whole to every device of a sliced op (chunk_plan.h's rule: the kernels
    // stage them in shared memory).
    uint64_t wholeInputMaxEntries = ChunkPlanOptions{}.wholeInputMaxEntries;
    uint64_t entryBytes = sizeof(double); // a table entry on the devices (4: float tables)
    // By op (empty: none): the rows its kernel computes together (a row group's span,
    // tensor_kernels.h: stride × size), 0 or 1 for a thread per row. A group a share's edge cuts
    // is still read whole by the device (its rows beyond the share are computed, not written), so
    // the share's input rows are those of its whole groups.
    std::vector<uint64_t> rowGroupSpan;
    bool keepForDecode = false; // see above: no downloads, holdings kept to the end
    // The executor's: run level by level, the host waiting for each, even where every device can
    // hold its widest ranges to the end (multi_device_run.h; to compare the two).
    bool levelByLevel = false;
    // The executor's: outputs keep the program's layouts, not slice_layout.h's (to compare).
    bool keepLayouts = false;
};

// The device frees its range of `table`.
struct TableRelease {
    uint32_t table = 0, device = 0;
};

// Per level: the reserves, then the moves (whose sources are holdings from earlier levels only, so
// a level's moves may run concurrently), then the tasks; once they are done the downloads of what
// they computed (every row once), then the releases.
struct MultiDeviceLevel {
    std::vector<TableReserve> reserves;
    std::vector<TableMove> moves;
    std::vector<DeviceTask> tasks;
    std::vector<TableMove> downloads;
    std::vector<TableRelease> releases;
};

struct MultiDevicePlan {
    uint32_t devices = 1;
    std::vector<MultiDeviceLevel> levels; // parallel to program.levels (one, of uploads, where
                                          // a program kept for its VALUE phase has none)
    std::vector<uint64_t> work;           // by device: entries of work assigned
    std::vector<uint64_t> deviceBytes;    // by device: the most bytes of tables held at once
    std::vector<uint64_t> heldToEndBytes; // by device: bytes of every widest range (heldToEnd)
    uint64_t uploadBytes = 0, peerBytes = 0, downloadBytes = 0;
    size_t slicedOps = 0;
};

// Whether the plan slices op o across `devices` (rather than giving it whole to one): its work
// reaches the threshold, or its tables exceed one device's budget.
bool slicedAcrossDevices(const TensorProgram &program, uint32_t o, uint32_t devices,
                         const MultiDeviceOptions &options);

Result<MultiDevicePlan> planMultiDevice(const TensorProgram &program, uint32_t devices,
                                        const MultiDeviceOptions &options = {});

// The plan planMultiDevice makes for one device, built directly for a verified program: every op
// whole on device 0, each table reserved whole where it is first used, nothing released (the
// general planner's bookkeeping took 0.4 ms a solve of SPOT5 404, about a third of its GPU run).
// The device budget is not checked: the in-core plan (chunk_plan.h) did.
MultiDevicePlan oneDevicePlan(const TensorProgram &program, const MultiDeviceOptions &options = {});

// Each table's widest range on each device that holds it, every (device, table) once: what a run
// holds when it keeps every range from the start to the end instead of growing and releasing
// them level by level (multi_device_run.h's ordered run). Ranges only grow between a table's
// first reserve and its release, so the widest is its last reserve.
std::vector<TableReserve> heldToEnd(const MultiDevicePlan &plan);

// Where a keepForDecode plan leaves each table at the end, every row once: each computed table in
// the slices its tasks computed, each input whole on device 0.
struct TableHolding {
    uint32_t table = 0, device = 0;
    RowSpan rows;
};
std::vector<TableHolding> decodeHoldings(const TensorProgram &program, const MultiDevicePlan &plan);

} // namespace zbddc
