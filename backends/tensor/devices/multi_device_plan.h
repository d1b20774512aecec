// Bucket elimination over several devices of one host, planned before anything is allocated. A
// level's buckets go whole to the least-loaded device (longest processing time first, Graham
// 1969); an op whose work reaches a threshold, or whose tables exceed a device's budget, is sliced
// along its leading output variables, device i computing a row range from the input rows it reads
// (chunk_plan.h's slicing, a device per slice). A device grows its range of a table (one each) and
// receives the rows it lacks from the host or the devices that computed them; computed pieces go
// to the host after their level, or with keepForDecode stay where they are to the end, the inputs
// whole on device 0 (decodeHoldings). A pure function of the program's shape.
#pragma once

#include "backends/tensor/devices/chunk_plan.h"
#include "backends/tensor/devices/tensor_device.h"
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
    // By op (empty: none): its row group's span (0 or 1: a thread per row); a share reads the
    // input rows of its whole groups.
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

// The plan planMultiDevice makes for one device, built directly (the general planner took a third
// of SPOT5 404's GPU run): every op whole on device 0, each table reserved whole where first used,
// nothing released, the budget unchecked (chunk_plan.h did).
MultiDevicePlan oneDevicePlan(const TensorProgram &program, const MultiDeviceOptions &options = {});

// Each table's widest range (its last reserve) on each device that holds it: what an ordered run
// holds from the start to the end (multi_device_run.h).
std::vector<TableReserve> heldToEnd(const MultiDevicePlan &plan);

// Where a keepForDecode plan leaves each table at the end, every row once: each computed table in
// the slices its tasks computed, each input whole on device 0.
struct TableHolding {
    uint32_t table = 0, device = 0;
    RowSpan rows;
};
std::vector<TableHolding> decodeHoldings(const TensorProgram &program, const MultiDevicePlan &plan);

} // namespace zbddc
