// Runs a TensorProgram on one GPU: input tables (sparse ones made complete) uploaded once, one
// NVRTC-compiled module for all op kernels, ops launched level by level (the ops of a level on
// separate streams, so independent buckets overlap, levels ordered by events on the device and the
// whole program captured as one CUDA graph: level_launch.h), computed tables kept on the device.
// runTensorProgramCuda downloads them; solveTensorProgramCuda instead decodes the assignment on
// the device (value_phase_gpu.h) and downloads no table. Output tables are written in chunks of
// at most `chunkRows` rows (the kernels take a row offset).
// Tables beyond device memory (Bistaffa et al. 2017 §V-B2): when all tables together exceed the
// budget — by default a fraction of the device memory cuMemGetInfo reports free — the executor
// follows planChunks (chunk_plan.h): tables live on the host, each op runs in steps that upload
// only the input rows they read and compute one chunk of the output, several steps in flight on
// streams that keep both copy engines busy (tensor_gpu_chunked.h). Programs whose layouts would
// make input slices wider than needed are re-laid out on the host first (chunk_layout.h).
#pragma once

#include "backends/tensor/cuda/plan/chunk_plan.h"
#include "backends/tensor/cuda/run/gpu_switches.h"
#include "backends/tensor/cuda/codegen/tensor_kernels.h"
#include "ir/tensor_program.h"

#include <vector>

namespace zbddc::cuda {

struct GpuExecOptions {
    TensorKernelOptions kernels;
    uint64_t chunkRows = uint64_t{1} << 26;
    double memoryFraction = 0.8;    // of the device memory free at the start usable for tables
    uint64_t memoryBudgetBytes = 0; // nonzero: use this budget instead (tests force out-of-core)
    uint32_t maxInFlight = 4;       // steps (buffers and streams) in flight per op out of core
    bool timeCopies = false;        // out of core: time every copy with events (stats below)
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
    bool graph = false;          // in core: the levels ran as one CUDA graph
    double graphCaptureMs = 0;   // its capture and instantiation, within kernelMs
    uint64_t levelJoins = 0;     // levels whose streams were joined by events
    uint64_t tableBytes = 0;     // in core: bytes the ops must move (op_profile.h), all ops
    bool float32 = false;        // in core: the tables were floats (narrow_costs.h)
    bool compiledFromCache = false;
    bool modulesReused = false; // every module was loaded by an earlier run of this process
    bool outOfCore = false;
    uint64_t chunks = 0; // kernel launches (steps) of the out-of-core path
    // Out of core: the budget and what it came from, bytes copied each way, the pinned staging
    // the copies went through (staged_copies.h), the most steps in flight, and whether the program
    // was re-laid out. uploadMs/downloadMs are then the staged copies' busy times, host halves
    // included (with timeCopies), overlapping kernelMs, the wall time of the whole chunked run.
    uint64_t budgetBytes = 0, deviceFreeBytes = 0, deviceTotalBytes = 0;
    uint64_t uploadBytes = 0, downloadBytes = 0, pinnedBytes = 0;
    uint32_t maxInFlight = 0;
    // Within kernelMs: sparse inputs made complete, and on a GPU's first out-of-core run its
    // staging allocated (computed tables are allocated as their ops start).
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
// as recoverAssignment completes it.
Result<double> solveTensorProgramCuda(const TensorProgram &program,
                                      std::vector<uint32_t> &assignment,
                                      const GpuExecOptions &options = {},
                                      GpuExecStats *stats = nullptr);

} // namespace zbddc::cuda
