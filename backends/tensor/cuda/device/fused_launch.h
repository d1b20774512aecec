// Launch units of an in-core run: a level's small ops that share a generic kernel run as one fused
// launch, op blockIdx.y of it (grid-81's first levels: 4-20 ops of a few thousand entries each);
// every other op runs alone.
#pragma once

#include "backends/cuda/driver.h"
#include "backends/tensor/cuda/codegen/tensor_modules.h"

#include <functional>
#include <span>
#include <vector>

namespace zbddc::cuda {

struct LaunchUnits {
    std::vector<std::vector<uint32_t>> levels; // unit ids, level by level (program.levels' shape)
    std::vector<std::vector<uint32_t>> ops;    // by unit: one op, or several of one generic kernel
};

// Levels of ops as units: a level's ops of one kernel with a fused entry point (hasFused)
// together, the rest alone, in the level's order of first use.
LaunchUnits launchUnits(const TensorModules &modules, std::span<const std::vector<uint32_t>> levels);

// Where each op's input list and output are on the device.
using DeviceAddressOf = std::function<DevicePtr(uint32_t op)>;

// The fused units' descriptor arrays (appendFusedOpDescriptor), uploaded in one copy.
class FusedLaunches {
  public:
    static Result<FusedLaunches> upload(Device &device, const TensorProgram &program,
                                        const TensorModules &modules, LaunchUnits units,
                                        const DeviceAddressOf &inputListOf,
                                        const DeviceAddressOf &outputOf);
    const LaunchUnits &units() const { return units_; }
    // Enqueues unit `unit` on `stream`: a single op through `single`, a fused one as one launch
    // whose grid is its largest op's (op_launch.h launchGrid).
    Status enqueue(Device &device, const TensorProgram &program, const TensorModules &modules,
                   const TensorKernelOptions &kernels, uint32_t unit,
                   const std::function<Status(uint32_t op, StreamHandle)> &single,
                   StreamHandle stream) const;

  private:
    LaunchUnits units_;
    DeviceBuffer descriptors_;
    std::vector<uint64_t> at_; // by unit: its array's byte offset (fused units)
};

} // namespace zbddc::cuda
