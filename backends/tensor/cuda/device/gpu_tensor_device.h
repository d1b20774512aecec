// One GPU, or a logical share of one, as a TensorDevice: the device of every GPU run. Tables of
// doubles, or floats (kernels.float32, converted exactly on the way), each one row range at its
// own address; work ordered on one entry stream, levels forked from it and joined back
// (level_launch.h). Prepared levels keep every input list in one array and fuse small ops
// (fused_launch.h); with `graphs` they are captured and replayed as one CUDA graph.
#pragma once

#include "backends/cuda/driver.h"
#include "backends/tensor/cuda/codegen/tensor_modules.h"
#include "backends/tensor/cuda/device/fused_launch.h"
#include "backends/tensor/cuda/device/level_launch.h"
#include "backends/tensor/devices/tensor_device.h"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace zbddc::cuda {

struct GpuDeviceOptions {
    TensorKernelOptions kernels;
    uint64_t chunkRows = uint64_t{1} << 26; // rows per launch at most (op_launch.h)
    size_t streams = 8;                     // a level's launches overlap on up to this many
    bool graphs = false;                    // prepared levels as one CUDA graph (above)
    // The host waits for each prepared level before it enqueues the next, where no graph is
    // captured: on large ops, levels joined by events alone ran slower and unevenly (barley's
    // batched MAR on an H100: 1.05-1.41 ms a case, 0.95 with a wait per level).
    bool waitEachLevel = false;
    // Uploads of doubles through the staged copies too, not through the device's own pinned
    // buffer, which holds every upload until the next wait: an out-of-core run's.
    bool stagedUploads = false;
    // Downloads of more than a few MiB through the staged copies; without, straight from the
    // driver, as a prepared program reads its tables back (mildew: 5 ms a run, 23-33 staged).
    bool stagedDownloads = true;
};

struct GpuDeviceStats {
    uint64_t launches = 0; // kernel launches enqueued (a fused unit counts one)
    bool graph = false;    // the last prepared run ran as one CUDA graph
};

// Streams, the `ready` event and pinned staging kept from one run to the next (creating them took
// milliseconds of a solve of a few): free lists per GPU, for the process.
struct GpuDeviceResources {
    std::unique_ptr<LevelLauncher> launcher;
    EventHandle ready = nullptr;
    PinnedBuffer staging;
};

class GpuTensorDevice final : public TensorDevice {
  public:
    // `modules`: the program's kernels loaded on `d`'s GPU.
    static Result<std::unique_ptr<GpuTensorDevice>> open(Device &d, const TensorProgram &program,
                                                         const GpuDeviceOptions &options,
                                                         TensorModules modules);
    ~GpuTensorDevice() override;

    Status reserve(uint32_t table, RowSpan rows) override;
    Status release(uint32_t table) override;
    Status upload(uint32_t table, uint64_t firstRow, std::span<const double> values) override;
    Status download(uint32_t table, uint64_t firstRow, std::span<double> values) override;
    // Whole input tables: one copy where holdAll packed them side by side (a junction tree's
    // evidence tables, made one after another), else one upload each.
    Status uploadTables(std::span<const uint32_t> tables,
                        std::span<const std::span<const double>> values);
    // Whole tables read back with one wait: those of at most kBatchedDownloadBytes through the
    // pinned staging together (a junction tree's hundreds of normalisers), with one copy where
    // holdAll put them all in its block of fetched tables, larger ones one by one.
    static constexpr size_t kBatchedDownloadBytes = size_t{1} << 18;
    Status downloadTables(std::span<const uint32_t> tables, std::span<const std::span<double>> out);
    Status holdAll(std::span<const TableReserve> ranges,
                   std::span<const std::span<const double>> inputs) override;
    Status prepareLevels(std::span<const std::vector<DeviceTask>> levels) override;
    Status launch(std::span<const DeviceTask> tasks) override;
    Status wait() override;

    DevicePtr address(uint32_t t, uint64_t row) const {
        return at_[t] + (row - held_[t].first) * entryBytes_;
    }
    uint64_t entryBytes() const { return entryBytes_; }
    Device &device() const { return d_; }
    StreamHandle copyStream() const { return entry_; }
    // `bytes` of pinned staging for a copy enqueued on copyStream(), valid until wait().
    Result<unsigned char *> pinnedStaging(size_t bytes) { return stage(bytes); }
    // `waiter`'s entry stream waits for every level enqueued here so far (`ready`, recorded on
    // request): another device's copies of these tables, or its decode.
    Status awaitedBy(GpuTensorDevice &waiter);
    const GpuDeviceStats &stats() const { return stats_; }

  private:
    GpuTensorDevice(Device &d, const TensorProgram &p, const GpuDeviceOptions &o,
                    TensorModules modules);
    // prepareLevels' work: by op, its level (UINT32_MAX: not prepared) and its input list's offset
    // in `lists`; the launch units; with `graphs`, the levels as captured on the first run and
    // replayed by every later one.
    struct Prepared {
        std::vector<std::vector<DeviceTask>> levels;
        std::vector<uint32_t> levelOf;
        std::vector<uint64_t> listAt;
        DeviceBuffer lists;
        std::optional<FusedLaunches> fused;
        size_t launchedLevels = 0, nonEmptyLevels = 0;
        std::shared_ptr<void> graph;
    };
    uint64_t outputRows(uint32_t op) const;
    bool computesWhole(const DeviceTask &task) const;
    void appendInputList(uint32_t op, std::vector<DevicePtr> &bases) const;
    Status holdFetched(std::span<const TableReserve> ranges,
                       std::span<const std::span<const double>> inputs);
    bool inFetchedBlock(uint32_t t) const; // table t lies in holdFetched's block
    Status launchTask(const DeviceTask &task, DevicePtr list, StreamHandle stream);
    Status launchPrepared(Prepared &pr, uint32_t level, std::span<const DeviceTask> tasks);
    Status enqueuePrepared(Prepared &pr, uint32_t level, std::span<const DeviceTask> tasks);
    Result<unsigned char *> stage(size_t bytes);
    // What stage() takes of the staging for `bytes`: each piece starts 16-byte aligned.
    static size_t stagedBytes(size_t bytes) { return (bytes + 15) / 16 * 16; }
    // An internal error unless the device holds `rows` of table `t` ("a download", ...).
    Status checkHeld(const char *what, uint32_t t, RowSpan rows) const;
    void forgetPrepared() { prepared_.reset(); }

    Device &d_;
    const TensorProgram &p_;
    GpuDeviceOptions options_;
    TensorModules modules_;
    std::vector<DevicePtr> at_;               // by table: the address of its held range's first row
    std::vector<DeviceBuffer> owned_;         // by table: its block, unless it lies in packed_
    std::vector<RowSpan> held_;               // by table
    DeviceBuffer packed_;                     // holdAll's small inputs
    DeviceBuffer fetched_;                    // holdAll's small tables of the fetch list
    std::vector<DeviceBuffer> listsInFlight_; // the input lists of the levels not waited for
    std::optional<Prepared> prepared_;
    bool capturing_ = false;
    uint64_t entryBytes_;
    GpuDeviceResources kept_;
    StreamHandle entry_ = nullptr; // kept_.launcher's
    size_t staged_ = 0;            // bytes of staging in use since the last wait
    GpuDeviceStats stats_;
};

} // namespace zbddc::cuda
