// Rows between the logical devices of a GPU run (a DeviceFabric): a copy within one GPU, NCCL or
// a peer copy between GPUs, each on the destination's entry stream after the source's `ready`
// event. NCCL where it loads and there are two GPUs or more, else peer copies.
#pragma once

#include "backends/tensor/cuda/device/gpu_tensor_device.h"

#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace zbddc::cuda {

class NcclComms;

class GpuFabric final : public DeviceFabric {
  public:
    // `devices` by position in `ordinals` (their GPU ordinals); `transport` says, for people, how
    // rows will cross.
    static std::unique_ptr<GpuFabric> open(std::vector<std::unique_ptr<GpuTensorDevice>> &devices,
                                           std::span<const int> ordinals, std::string &transport);

    Status enqueue(std::span<const TableMove> moves) override;
    Status copy(std::span<const TableMove> moves) override;

  private:
    GpuFabric(std::vector<std::unique_ptr<GpuTensorDevice>> &devices, std::span<const int> ordinals)
        : devices_(devices), ordinals_(ordinals) {}

    std::vector<std::unique_ptr<GpuTensorDevice>> &devices_;
    std::span<const int> ordinals_;
    NcclComms *nccl_ = nullptr; // the process's, for these GPUs
    std::map<int, int> rankOf_; // GPU ordinal -> NCCL rank
};

} // namespace zbddc::cuda
