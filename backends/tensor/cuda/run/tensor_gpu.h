// Runs a TensorProgram on GPUs, one logical device per ordinal listed (a GPU listed twice holds
// two), each a GpuTensorDevice driven by the step runner (device_steps.h): in core the steps of a
// MultiDevicePlan (multi_device_run.h; one device: oneDevicePlan), float tables where exact
// (narrow_costs.h); out of core, on one device, the chunk plan's steps (chunk_steps.h), re-laid
// out where that narrows the slices (chunk_layout.h). runTensorProgramCuda downloads the computed
// tables; solveTensorProgramCuda decodes the assignment on the first device (value_phase_gpu.h).
#pragma once

#include "backends/tensor/cuda/codegen/tensor_kernels.h"
#include "backends/tensor/cuda/device/gpu_tensor_device.h"
#include "backends/tensor/cuda/run/gpu_switches.h"
#include "backends/tensor/devices/multi_device_plan.h"
#include "ir/tensor_program.h"

#include <memory>
#include <string>
#include <vector>

namespace zbddc::cuda {

struct GpuExecOptions {
    TensorKernelOptions kernels;
    uint64_t chunkRows = uint64_t{1} << 26;
    // Bytes of tables each logical device may hold; 0: 80% of the GPU's free memory, shared by
    // its logical devices.
    uint64_t memoryBudgetBytes = 0;
    std::vector<int> devices{0};    // the logical devices, by GPU ordinal
    MultiDeviceOptions multiDevice; // how several devices (or one, level by level) share the work
    GpuSwitches switches;           // the variants benchmarks compare
};

struct GpuExecStats {
    std::string device;    // DeviceInfo::label() of each distinct GPU, comma-separated
    std::string transport; // several devices: how tables crossed between them, for people
    double compileMs = 0, uploadMs = 0, kernelMs = 0, downloadMs = 0, peerMs = 0;
    double valueMs = 0;         // solveTensorProgramCuda: the VALUE phase
    bool valueOnDevice = false; // decoded on the device (in core) rather than on the host
    uint64_t launches = 0;      // in core: kernel launches (chunks of every op), all devices
    // Host wall time: checked, planned and compiled (prepareMs: planMs and compileMs within); in
    // core, devices opened (openMs), the step runner (stepsMs), devices closed (closeMs).
    double prepareMs = 0, planMs = 0, openMs = 0, stepsMs = 0, closeMs = 0;
    uint64_t steps = 0;
    bool ordered = false;    // in core: the host waited once, not once a level
    bool graph = false;      // in core: the levels ran as one CUDA graph
    uint64_t tableBytes = 0; // in core: bytes the ops must move (op_profile.h), all ops
    bool float32 = false;    // in core: the tables were floats (narrow_costs.h)
    bool modulesReused = false; // every module was loaded by an earlier run of this process
    size_t slicedOps = 0;       // ops sliced across the devices
    size_t relaidOutputs = 0;   // outputs laid out for slicing (slice_layout.h)
    std::vector<uint64_t> work; // in core: entries of work by logical device
    bool outOfCore = false;
    uint64_t chunks = 0; // kernel launches (steps) of the out-of-core path
    // Each logical device's budget, bytes copied each way; out of core the pinned staging, and
    // uploadMs/downloadMs the host's time in those steps, within kernelMs (the whole run's).
    uint64_t budgetBytes = 0;
    uint64_t uploadBytes = 0, peerBytes = 0, downloadBytes = 0, pinnedBytes = 0;
    // Within kernelMs: on a GPU's first out-of-core run its staging allocated.
    double hostPrepMs = 0;
    bool relaid = false;
};

// Same result layout as runTensorProgramCpu / interpretTensorProgram.
Result<std::vector<std::vector<double>>> runTensorProgramCuda(const TensorProgram &program,
                                                              const GpuExecOptions &options = {},
                                                              GpuExecStats *stats = nullptr);

// The program run, then the VALUE phase where its tables are: on the first device in core (other
// GPUs read through peer access), on the host out of core. Returns the ⊗ of the result tables;
// `assignment` and `tied` (optional) as recoverAssignment's.
Result<double> solveTensorProgramCuda(const TensorProgram &program,
                                      std::vector<uint32_t> &assignment,
                                      const GpuExecOptions &options = {},
                                      GpuExecStats *stats = nullptr, bool *tied = nullptr);

// The program's kernels compiled for GPU options.devices[0] and its TensorDevice, holding no
// table yet: the host/device split's device and a prepared program's, whose levels replay as one
// CUDA graph where switches.graphs says so or, unset, where its ops are small.
Result<std::unique_ptr<GpuTensorDevice>> openGpuTensorDevice(const TensorProgram &program,
                                                             const GpuExecOptions &options = {});

} // namespace zbddc::cuda
