// Runs a TensorProgram on GPUs, one logical device per ordinal listed (a GPU listed twice holds
// two), each a GpuTensorDevice (gpu_tensor_device.h) driven by the step runner (device_steps.h):
//   in core, the steps of a MultiDevicePlan (multi_device_run.h): on one device every op whole,
//   the plan built directly (oneDevicePlan); on several, large buckets sliced across them, rows
//   crossing between them (gpu_fabric.h), outputs laid out for slicing where that moves fewer rows
//   (slice_layout.h); tables are floats where every value stays exact (narrow_costs.h);
//   out of core, on one device, where the tables exceed the budget (Bistaffa et al. 2017 §V-B2):
//   the chunk plan's steps (chunk_plan.h, chunk_steps.h), the program re-laid out first where its
//   layouts would make the steps' input slices wider than they need be (chunk_layout.h).
// runTensorProgramCuda downloads the computed tables; solveTensorProgramCuda decodes the
// assignment on the first device instead (value_phase_gpu.h), reading each table where it was
// computed, and downloads none.
#pragma once

#include "backends/tensor/cuda/codegen/tensor_kernels.h"
#include "backends/tensor/cuda/device/gpu_tensor_device.h"
#include "backends/tensor/cuda/plan/multi_device_plan.h"
#include "backends/tensor/cuda/run/gpu_switches.h"
#include "backends/tensor/cuda/run/incomplete_run.h"
#include "ir/tensor_program.h"

#include <memory>
#include <string>
#include <vector>

namespace zbddc::cuda {

struct GpuExecOptions {
    TensorKernelOptions kernels;
    uint64_t chunkRows = uint64_t{1} << 26;
    // Bytes of tables each logical device may hold (the caller's budget; tests force the
    // out-of-core path with it); 0: 80% of the memory free at the start, shared by the logical
    // devices of a GPU.
    uint64_t memoryBudgetBytes = 0;
    std::vector<int> devices{0};    // the logical devices, by GPU ordinal
    MultiDeviceOptions multiDevice; // how several devices (or one, level by level) share the work
    GpuSwitches switches;           // the variants benchmarks compare
};

struct GpuExecStats {
    std::string device;    // DeviceInfo::label() of each distinct GPU, comma-separated
    std::string transport; // several devices: how tables crossed between them, for people
    double compileMs = 0, uploadMs = 0, kernelMs = 0, downloadMs = 0, peerMs = 0;
    // solveTensorProgramCuda: the VALUE phase (decode, optimum); in core the device's time from
    // the ops' end to the decoding kernel's end (its plan is built while the ops run).
    double valueMs = 0;
    bool valueOnDevice = false; // decoded on the device (in core) rather than on the host
    uint64_t launches = 0;      // in core: kernel launches (chunks of every op), all devices
    // Host wall time: the program checked, planned and its kernels found or compiled (prepareMs;
    // planMs and compileMs within); in core, the devices opened and the steps made (openMs), the
    // step runner's `steps` (stepsMs, its one wait for the devices included), the devices closed
    // (closeMs: their streams waited for, their tables back in the pool).
    double prepareMs = 0, planMs = 0, openMs = 0, stepsMs = 0, closeMs = 0;
    uint64_t steps = 0;
    bool ordered = false;    // in core: the host waited once, not once a level
    bool graph = false;      // in core: the levels ran as one CUDA graph
    uint64_t tableBytes = 0; // in core: bytes the ops must move (op_profile.h), all ops
    bool float32 = false;    // in core: the tables were floats (narrow_costs.h)
    bool compiledFromCache = false;
    bool modulesReused = false; // every module was loaded by an earlier run of this process
    size_t slicedOps = 0;       // ops sliced across the devices
    size_t relaidOutputs = 0;   // outputs laid out for slicing (slice_layout.h)
    std::vector<uint64_t> work; // in core: entries of work by logical device
    bool outOfCore = false;
    uint64_t chunks = 0; // kernel launches (steps) of the out-of-core path
    // The budget of each logical device, bytes copied each way (and, in core, between devices); out
    // of core the pinned staging the copies went through (staged_copies.h), and whether the program
    // was re-laid out. Out of core uploadMs/downloadMs are the host's time in the steps that
    // enqueue uploads (with the reserves) and wait for downloads, within kernelMs, the wall time of
    // the whole chunked run.
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

// The program run, then the VALUE phase where its tables are: on the first device in core (no
// table downloaded; the other GPUs' memory read through peer access), on the host out of core
// (the tables are there already). Returns the ⊗ of the result tables; `assignment` (by variable,
// evidence and defaults filled in) comes back completed as recoverAssignment completes it; `tied`
// (optional) as recoverAssignment's, set either way.
Result<double> solveTensorProgramCuda(const TensorProgram &program,
                                      std::vector<uint32_t> &assignment,
                                      const GpuExecOptions &options = {},
                                      GpuExecStats *stats = nullptr, bool *tied = nullptr);

// Over incomplete tables (Bistaffa et al. 2017 §IV) on GPU 0: the kernels of incomplete_kernels.h
// compiled with NVRTC, launched by the steps of incomplete_run.h on the GPU's TensorDevice. Same
// result as runIncompleteTensorProgramCpu, every computed table incomplete; `stats` gets the
// device, compileMs, compiledFromCache and the run's wall time as kernelMs.
Result<std::vector<TableData>>
runIncompleteTensorProgramCuda(const TensorProgram &program,
                               const incomplete::DeviceRunOptions &options = {},
                               GpuExecStats *stats = nullptr);

// The program's kernels compiled for GPU options.devices[0] and the GPU's TensorDevice over them,
// holding no table yet: the device of the host/device split and of a prepared program run again
// and again (runtime/tensor), whose levels replay as one CUDA graph where options.switches.graphs
// says so or, unset, where its ops are small enough for their launches to matter.
Result<std::unique_ptr<GpuTensorDevice>> openGpuTensorDevice(const TensorProgram &program,
                                                             const GpuExecOptions &options = {});

} // namespace zbddc::cuda
