// The host/device split of bucket elimination: small buckets on the host, large ones on the GPU,
// both at work within a level (host and device at once as in Fioretto et al. 2015 §3.2, Fig. 2;
// Bistaffa et al. 2016 §3.2 likewise keeps small tables on the CPU). Ops whose work — output rows ×
// eliminated joint values, the entries the op reads per input — reaches a threshold go to the
// device, the rest stay on the host. The threshold is measured: bench/be_split_crossover times one
// op on 16 CPU threads against the GPU (launch and transfers included) across table sizes and
// prints where the GPU starts to win.
#pragma once

#include "backends/tensor/cuda/run/device_steps.h"
#include "ir/tensor_program.h"

#include <cstdint>
#include <span>
#include <vector>

namespace zbddc {

// From bench/be_split_crossover on the H100 host (16 threads, 2026-11-22, bench/results/NOTEBOOK.md): the
// GPU's kernel beats the CPU from 4,096 entries of work and, counting the upload and download
// into unpinned host memory, from 16,384 up to 1M entries (beyond that the copies cost more than
// 16 threads of CPU); 2^14 takes the with-transfer start. --split-threshold overrides it.
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
Result<std::vector<std::vector<double>>>
runTensorProgramSplit(const TensorProgram &program, const SplitPlan &plan, TensorDevice *device,
                      unsigned hostThreads = 0);

} // namespace zbddc
