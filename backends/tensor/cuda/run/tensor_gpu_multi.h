// A TensorProgram over several GPUs of one host, or several logical devices on one GPU: the
// MultiDevicePlan (multi_device_plan.h) run by multi_device_run.h over one device per ordinal
// listed, each with its own streams, kernels and tables. Between logical devices of one GPU tables
// cross by device-to-device copies; between GPUs through NCCL (send/receive in one group per
// level, nccl.h) where it loads, else by peer copies — so a build without NCCL still runs, and a
// list such as 0,0 exercises the whole path on a machine of one GPU. Unless the plan options give
// a device budget, each logical device may hold options.memoryFraction of its GPU's free memory,
// shared with the other logical devices on that GPU: a bucket beyond it is sliced across them.
// Tables are floats where every value stays exact (narrow_costs.h), as on one GPU.
#pragma once

#include "backends/tensor/cuda/run/multi_device_run.h"
#include "backends/tensor/cuda/run/tensor_gpu.h"

#include <span>
#include <string>
#include <vector>

namespace zbddc::cuda {

struct MultiGpuStats {
    std::vector<int> ordinals; // the logical devices, by GPU ordinal
    std::string gpus;          // DeviceInfo::label() of each distinct GPU, comma-separated
    std::string transport;     // how tables crossed devices, for people
    size_t slicedOps = 0;      // ops sliced across the devices
    size_t relaidOutputs = 0;  // outputs laid out for slicing (slice_layout.h)
    uint64_t uploadBytes = 0, peerBytes = 0, downloadBytes = 0;
    uint64_t tableBytes = 0;        // bytes the ops must move (op_profile.h), all ops
    std::vector<uint64_t> work;     // entries of work by logical device
    uint64_t deviceBudgetBytes = 0; // bytes of tables each logical device may hold
    bool float32 = false;           // the tables were floats
    double planMs = 0;              // host time before the kernels load: checks, layouts, the plan
    double compileMs = 0;
    double valueMs = 0; // solveTensorProgramMultiGpu: the VALUE phase
    MultiDeviceStats times;
};

// Same result layout as runTensorProgramCuda. `ordinals` may repeat a GPU.
Result<std::vector<std::vector<double>>>
runTensorProgramMultiGpu(const TensorProgram &program, std::span<const int> ordinals,
                         const MultiDeviceOptions &plan = {}, const GpuExecOptions &options = {},
                         MultiGpuStats *stats = nullptr);

// The program run, then the VALUE phase on the first device, reading each table where it was
// computed (kernels read the other GPUs' memory through peer access), so no table goes to the
// host: as solveTensorProgramCuda, the ⊗ of the result tables, `assignment` completed, `tied`.
Result<double> solveTensorProgramMultiGpu(const TensorProgram &program,
                                          std::span<const int> ordinals,
                                          std::vector<uint32_t> &assignment,
                                          const MultiDeviceOptions &plan = {},
                                          const GpuExecOptions &options = {},
                                          MultiGpuStats *stats = nullptr, bool *tied = nullptr);

} // namespace zbddc::cuda
