// One GPU as a TensorDevice (device/tensor_device.h) of whole tables and whole ops: the device half
// of the host/device split (host_device_split.h) and the prepared programs of the tensor
// executors. A program's kernels compiled once (one NVRTC module, as runTensorProgramCuda), device
// tables allocated whole as they are reserved or arrive, and ops launched on streams without
// waiting, so the host can run its own ops of the level meanwhile (Fioretto et al. 2015 §3.2,
// Fig. 2). Tables are addressed by id.
#pragma once

#include "backends/tensor/cuda/device/tensor_device.h"
#include "backends/tensor/cuda/run/tensor_gpu.h"

#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace zbddc::cuda {

class TensorGpuSession final : public TensorDevice {
  public:
    static Result<std::unique_ptr<TensorGpuSession>> open(const TensorProgram &program,
                                                          const GpuExecOptions &options = {});
    ~TensorGpuSession() override;

    // The table allocated whole (any `rows`); release frees it, once the streams are done.
    Status reserve(uint32_t table, RowSpan rows) override;
    Status release(uint32_t table) override;
    // Synchronous copies of rows from `firstRow` on.
    Status upload(uint32_t table, uint64_t firstRow, std::span<const double> values) override;
    Status download(uint32_t table, uint64_t firstRow, std::span<double> values) override;
    // Enqueues the tasks (independent ones: one level's), each of every row of its op
    // (wholeOpTask: the session launches whole ops), on the session's streams and returns.
    Status launch(std::span<const DeviceTask> tasks) override;
    Status wait() override;
    // The same for ops by id.
    Status launchOps(std::span<const uint32_t> ops);
    // Every level of the program in order, waited for: levels ordered by events on the device
    // and captured as one CUDA graph (level_launch.h), no host wait between them.
    Status runAll();
    // Exchanges the device buffers of each pair (a computed table and an input table of one
    // size): the next run reads what the last one wrote (loopy BP's messages), nothing copied.
    // The same pairs every call: each op keeps an input-address list for both arrangements, so
    // swapping back and forth uploads nothing after the first two runs.
    Status swapTables(std::span<const std::pair<uint32_t, uint32_t>> pairs);
    // After runAll: the VALUE phase of `cases` assignments on the device, over the tables there
    // (value_phase_gpu.h's decodeCasesOnDevice; tables of doubles).
    Status decodeCases(std::vector<uint32_t> &assignments, const std::vector<uint8_t> &pinned,
                       uint32_t cases);

    const std::string &deviceName() const;
    double compileMs() const;

  private:
    struct State;
    explicit TensorGpuSession(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

} // namespace zbddc::cuda
