// The host/device split of bucket elimination: small buckets on the host, large ones on the GPU,
// both at work within a level (Fioretto et al. 2015 §3.2, Fig. 2): ops whose work (output rows ×
// eliminated values) reaches a threshold go to the device, the rest stay on the host.
#pragma once

#include "backends/tensor/devices/device_steps.h"
#include "ir/tensor_program.h"

#include <cstdint>
#include <span>
#include <vector>

namespace zbddc {

// Where the GPU with its copies starts to beat 16 CPU threads (bench/be_split_crossover, H100,
// bench/results/NOTEBOOK.md). --split-threshold overrides it.
inline constexpr uint64_t kDefaultSplitThresholdEntries = uint64_t{1} << 14;

enum class OpSide : uint8_t { Host, Device };

// Entries an op ranges over: output rows × joint values of its eliminated variables.
uint64_t opWorkEntries(const TensorProgram &program, uint32_t op);

struct SplitLevel {
    std::vector<uint32_t> hostOps, deviceOps;
    std::vector<uint32_t> uploads;   // host tables the device ops read, not on the device yet
    std::vector<uint32_t> downloads; // device outputs of this level that later host ops read
};

struct SplitPlan {
    uint64_t thresholdEntries = 0;
    std::vector<OpSide> side;             // by op
    std::vector<SplitLevel> levels;       // parallel to program.levels
    std::vector<uint32_t> finalDownloads; // the other device outputs (VALUE phase, results)
    uint64_t uploadBytes = 0, downloadBytes = 0;
    size_t hostOps = 0, deviceOps = 0;
};

// A pure function of the program's shape: no table is touched.
SplitPlan planHostDeviceSplit(const TensorProgram &program, uint64_t thresholdEntries);

// The plan's steps (device_steps.h), level by level: uploads, device ops launched (their outputs
// reserved first), host ops run meanwhile, wait, downloads; then the final downloads.
std::vector<DeviceStep> splitSteps(const TensorProgram &program, const SplitPlan &plan);

// splitSteps run (runDeviceSteps); `device` may be null when the plan puts no op on it.
Result<std::vector<std::vector<double>>> runTensorProgramSplit(const TensorProgram &program,
                                                               const SplitPlan &plan,
                                                               TensorDevice *device,
                                                               unsigned hostThreads = 0);

} // namespace zbddc
