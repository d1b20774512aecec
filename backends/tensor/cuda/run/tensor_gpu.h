// Runs a TensorProgram on one GPU: one NVRTC-compiled module for all op kernels and, in core, the
// steps of inCoreSteps (multi_device_run.h) on the GPU's TensorDevice (gpu_tensor_device.h): input
// tables (sparse ones made complete) uploaded at once, ops launched level by level with no host
// wait between levels (a level's ops on separate streams, so independent buckets overlap; its
// small ops of one generic kernel fused; optionally the whole program one CUDA graph), computed
// tables kept on the device. runTensorProgramCuda downloads them; solveTensorProgramCuda instead decodes the assignment on
// the device (value_phase_gpu.h) and downloads no table. Output tables are written in chunks of
// at most `chunkRows` rows (the kernels take a row offset).
// Tables beyond device memory (Bistaffa et al. 2017 §V-B2): when all tables together exceed the
// budget — by default a fraction of the device memory cuMemGetInfo reports free — the executor
// follows planChunks (chunk_plan.h): tables live on the host, each op runs in steps that upload
// only the input rows they read and compute one chunk of the output (chunk_steps.h, on the same
// TensorDevice). Programs whose layouts would
// make input slices wider than needed are re-laid out on the host first (chunk_layout.h).
#pragma once

#include "backends/tensor/cuda/device/gpu_tensor_device.h"
#include "backends/tensor/cuda/plan/chunk_plan.h"
#include "backends/tensor/cuda/run/gpu_switches.h"
#include "backends/tensor/cuda/codegen/tensor_kernels.h"
#include "ir/tensor_program.h"

#include <memory>
#include <vector>

namespace zbddc::cuda {

struct GpuExecOptions {
    TensorKernelOptions kernels;
    uint64_t chunkRows = uint64_t{1} << 26;
    double memoryFraction = 0.8;    // of the device memory free at the start usable for tables
    uint64_t memoryBudgetBytes = 0; // nonzero: use this budget instead (tests force out-of-core)
    int device = 0;                 // the GPU's ordinal
    GpuSwitches switches;           // the variants benchmarks compare
};

struct GpuExecStats {
    double compileMs = 0, uploadMs = 0, kernelMs = 0, downloadMs = 0;
    // solveTensorProgramCuda: the VALUE phase (decode, optimum); in core the device's time from
    // the ops' end to the decoding kernel's end (its plan is built while the ops run).
    double valueMs = 0;
    bool valueOnDevice = false;  // decoded on the device (in core) rather than on the host
    uint64_t launches = 0;       // in core: kernel launches (chunks of every op)
    // Host wall time: the program checked, planned and its kernels found or compiled (prepareMs,
    // compileMs within); in core, the device opened and the steps planned (openMs), the step
    // runner's `steps` (stepsMs, its one wait for the device included), the device closed
    // (closeMs: its streams waited for, its tables back in the pool).
    double prepareMs = 0, openMs = 0, stepsMs = 0, closeMs = 0;
    uint64_t steps = 0;
    bool graph = false;          // in core: the levels ran as one CUDA graph
    uint64_t tableBytes = 0;     // in core: bytes the ops must move (op_profile.h), all ops
    bool float32 = false;        // in core: the tables were floats (narrow_costs.h)
    bool compiledFromCache = false;
    bool modulesReused = false; // every module was loaded by an earlier run of this process
    bool outOfCore = false;
    uint64_t chunks = 0; // kernel launches (steps) of the out-of-core path
    // Out of core: the budget and what it came from, bytes copied each way, the pinned staging
    // the copies went through (staged_copies.h), and whether the program was re-laid out.
    // uploadMs/downloadMs are then the host's time in the steps that enqueue uploads (with the
    // reserves) and wait for downloads, within kernelMs, the wall time of the whole chunked run.
    uint64_t budgetBytes = 0;
    uint64_t uploadBytes = 0, downloadBytes = 0, pinnedBytes = 0;
    // Within kernelMs: on a GPU's first out-of-core run its staging allocated.
    double hostPrepMs = 0;
    bool relaid = false;
    std::string device;
};

// Same result layout as runTensorProgramCpu / interpretTensorProgram.
Result<std::vector<std::vector<double>>> runTensorProgramCuda(const TensorProgram &program,
                                                              const GpuExecOptions &options = {},
                                                              GpuExecStats *stats = nullptr);

// The program run, then the VALUE phase where its tables are: on the device in core (no table
// downloaded), on the host out of core (the tables are there already). Returns the ⊗ of the
// result tables; `assignment` (by variable, evidence and defaults filled in) comes back completed
// as recoverAssignment completes it; `tied` (optional) as recoverAssignment's, set either way.
Result<double> solveTensorProgramCuda(const TensorProgram &program,
                                      std::vector<uint32_t> &assignment,
                                      const GpuExecOptions &options = {},
                                      GpuExecStats *stats = nullptr, bool *tied = nullptr);

// The program's kernels compiled for GPU options.device and the GPU's TensorDevice over them, holding
// no table yet: the device of the host/device split and of a prepared program run again and again
// (runtime/tensor), whose levels replay as one CUDA graph unless options.switches.graphs is false.
Result<std::unique_ptr<GpuTensorDevice>> openGpuTensorDevice(const TensorProgram &program,
                                                             const GpuExecOptions &options = {});

} // namespace zbddc::cuda
