// Enqueues a TensorProgram's levels without the host waiting between them: a level's launch units
// go to up to eight streams, forked from one entry stream and joined back into it by events, so
// the order between levels stays on the device (and a capture of them is one CUDA graph,
// gpu_tensor_device.h).
#pragma once

#include "backends/cuda/driver.h"

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace zbddc::cuda {

// Enqueues launch unit `unit` on `stream` (its kernel launches, chunk by chunk).
using EnqueueOp = std::function<Status(uint32_t unit, StreamHandle stream)>;

class LevelLauncher {
  public:
    explicit LevelLauncher(Device &device) : device_(device) {}
    ~LevelLauncher();
    LevelLauncher(const LevelLauncher &) = delete;
    LevelLauncher &operator=(const LevelLauncher &) = delete;

    // One level's units forked from entry() onto its streams and joined back into it, no wait.
    Status enqueueLevel(std::span<const uint32_t> units, const EnqueueOp &enqueue);
    // The stream a level forks from and joins into, with `streams` streams made ready.
    Result<StreamHandle> entry(size_t streams);
    // Waits for every stream: after a failed enqueue, work may be left on streams never joined.
    Status synchronizeAll();

  private:
    Device &device_;
    std::vector<StreamHandle> streams_;
    std::vector<EventHandle> done_; // by stream: its last level's units finished
    EventHandle joined_ = nullptr;  // stream 0 before a level's fork
};

} // namespace zbddc::cuda
