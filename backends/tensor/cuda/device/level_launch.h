// Enqueues a TensorProgram's levels without the host waiting between them: the ops of a level go
// to up to eight streams (independent buckets overlap), and the next level's streams wait on
// events recorded after this level's ops, so ordering stays on the device. Optionally the whole
// enqueue is captured as one CUDA graph and launched once: a program of a hundred levels then costs
// one launch and one wait, where per-level synchronisation cost a host round trip per level (what
// dominated SPOT5 404, whose tables are too small to fill the device).
#pragma once

#include "backends/cuda/driver.h"

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace zbddc::cuda {

// Which stream each launch unit (an op, or a fused launch of several) runs on, and which units of
// other streams it waits for, planned from the units' producers: a unit continues the stream of
// a producer that was the last unit put there, else takes a stream unused in its level (the
// longest unused first); it waits on an event recorded after each producer on another stream,
// unless its stream already waited on that stream at or past it. Independent chains of buckets
// then run on their own streams with no wait between levels (SPOT5 404 has two such chains of
// 15 levels), where a fork and a join per level makes every level wait for its slowest op. On an
// H200 it measured level with the per-level joins (SPOT5 404 4-7% faster, grid-81 6-8% slower:
// bench/results/NOTEBOOK.md), which stay the executor's default.
struct StreamPlan {
    std::vector<uint32_t> streamOf;             // by unit
    std::vector<std::vector<uint32_t>> waitFor; // by unit: the units whose events it waits on
    std::vector<bool> recordAfter;              // by unit: another stream waits on its event
    size_t streams = 1;                         // streams used
};
// `producersOf[u]`: the units whose outputs unit u reads (earlier levels only).
StreamPlan planStreams(std::span<const std::vector<uint32_t>> levels,
                       std::span<const std::vector<uint32_t>> producersOf, size_t maxStreams);

// Enqueues op `op` on `stream` (its kernel launches, chunk by chunk).
using EnqueueOp = std::function<Status(uint32_t op, StreamHandle stream)>;
// Work enqueued on `stream` after every op, before the run waits (a solve's VALUE phase).
using AfterOps = std::function<Status(StreamHandle stream)>;

struct LevelLaunchStats {
    // Units enqueued; levels after which streams were joined (with producers: events waited on
    // by another stream).
    uint64_t ops = 0, joins = 0;
    bool graph = false;          // captured and launched as one CUDA graph
    double captureMs = 0;        // capture and instantiation, host time (within the run)
};

class LevelLauncher {
  public:
    explicit LevelLauncher(Device &device) : device_(device) {}
    ~LevelLauncher();
    LevelLauncher(const LevelLauncher &) = delete;
    LevelLauncher &operator=(const LevelLauncher &) = delete;

    // Every level in order, then `after` (where given), then waits for the device. With `graph`,
    // the levels are captured and launched as one graph; where the capture fails, enqueued again
    // directly (stats.graph says which ran). With `producersOf` (by unit, as planStreams takes
    // it) the streams follow planStreams; without, each level forks from stream 0 and joins
    // back into it.
    Status run(std::span<const std::vector<uint32_t>> levels, const EnqueueOp &enqueue, bool graph,
               LevelLaunchStats *stats = nullptr, const AfterOps &after = {},
               std::span<const std::vector<uint32_t>> producersOf = {});

    // For callers that order several devices' work themselves (tensor_gpu_multi.cpp): one level's
    // units forked from entry() onto up to `streams` streams and joined back into it, no wait.
    Status enqueueLevel(std::span<const uint32_t> units, const EnqueueOp &enqueue);
    // The stream a level forks from and joins into, with `streams` streams made ready.
    Result<StreamHandle> entry(size_t streams);
    // Waits for every stream: after a failed enqueue, work may be left on streams never joined.
    Status synchronizeAll();

  private:
    Status enqueueAll(std::span<const std::vector<uint32_t>> levels, const EnqueueOp &enqueue,
                      LevelLaunchStats &st);
    Status enqueueOne(std::span<const uint32_t> level, const EnqueueOp &enqueue,
                      LevelLaunchStats &st);
    Status enqueuePlanned(std::span<const std::vector<uint32_t>> levels, const StreamPlan &plan,
                          const EnqueueOp &enqueue, LevelLaunchStats &st);
    Status ensureStreams(size_t n);
    Result<EventHandle> unitEvent(size_t i); // the i-th event of a planned enqueue

    Device &device_;
    std::vector<StreamHandle> streams_;
    std::vector<EventHandle> done_; // by stream: its last level's ops finished
    EventHandle joined_ = nullptr;  // stream 0 after waiting for every stream of a level
    std::vector<EventHandle> unitEvents_; // a planned enqueue's, one per recording unit
};

} // namespace zbddc::cuda
