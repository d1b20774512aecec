// One executor of TensorPrograms — the reference interpreter, the threaded CPU, the CUDA
// kernels, or the host/device split — found by name in one table, as runtime/engine.h's engines
// are for circuits (and as tinygrad's device.py finds its backends). solveBucketElimination picks
// its executor here and nowhere else. Every build lists every name; where the build has no CUDA
// tensor backend, "cuda" fails with that reason and "split" runs on the CPU.
#pragma once

#include "backends/tensor/cuda/run/gpu_switches.h"
#include "backends/tensor/devices/host_device_split.h"
#include "backends/tensor/devices/multi_device_plan.h"
#include "ir/incomplete_tables.h"
#include "ir/tensor_program.h"
#include "runtime/device.h"
#include "support/gpu_settings.h"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zbddc {

// Tables by id as the executor computed them (input tables stay empty), and where.
struct CompleteTables {
    std::vector<std::vector<double>> tables; // the layout of interpretTensorProgram
    DeviceReport device;
};
struct IncompleteTables {
    std::vector<TableData> tables;
    DeviceReport device;
};

// Where one solve's time went, as far as the executor can tell (zero where it cannot): the GPU's
// kernel compile, uploads, kernels, downloads and the VALUE phase.
struct ExecutionTimes {
    double compileMs = 0, uploadMs = 0, kernelMs = 0, downloadMs = 0, valueMs = 0;
    bool valueOnDevice = false; // the assignment was decoded where the tables are, none downloaded
    uint64_t launches = 0;      // GPU kernel launches
    bool graph = false;         // the GPU ran the levels as one CUDA graph
    uint64_t tableBytes = 0;    // bytes the ops must move at least (inputs read, outputs written)
    bool float32 = false;       // the GPU held the tables as floats (every value exact)
    double peerMs = 0;          // several GPUs: tables crossing between them (beside kernelMs)
    double planMs = 0;          // several GPUs: the host's plan (layouts, placement, moves)
};

// A program run and its VALUE phase done, by solve().
struct SolvedProgram {
    double optimum = 0; // the ⊗ of the result tables (programResult)
    DeviceReport device;
    ExecutionTimes times;
    // Whether the VALUE phase met another assignment reaching the optimum (recoverAssignment's
    // `tied`, or the device walk's same report); unset where the executor cannot say.
    std::optional<bool> tied;
};

struct TensorExecutorOptions {
    unsigned threads = 0; // CPU threads of cpu and of split's host half; 0: all hardware threads
    // The refusal over incomplete tables: rows of one join.
    uint64_t maxIncompleteRows = uint64_t{1} << 25;
    // split: an op whose work (output rows x eliminated values) reaches this runs on the GPU.
    uint64_t splitThresholdEntries = kDefaultSplitThresholdEntries;
    // cuda: the GPUs as `--devices` names them (device_list.h): "" one GPU (0); "all", a count,
    // or ordinals ("0,2"; "0,0" two logical devices on GPU 0). Several run the multi-device plan
    // (tensor_gpu.h), its options below; one runs the single-GPU executor, saying so.
    std::string devices;
    MultiDeviceOptions multiDevice;
    int gpu = 0; // cuda without `devices`: the GPU's ordinal
    // cuda: nonzero caps the bytes of tables each device holds (one GPU goes out of core beyond
    // it; several slice buckets across them), as if the GPUs were smaller: benchmarks use it.
    uint64_t gpuBudgetBytes = 0;
    // cuda and split: the GPU run's variants that benchmarks compare (graphs, float tables,
    // the per-op profile), as the program's edge set them (gpuSwitchesFromVariables).
    cuda::GpuSwitches gpuSwitches;
};

// A program compiled and placed once, then run again and again with some input tables changed
// in between (a batched junction tree's evidence): the GPU keeps its module and device tables.
class PreparedTensorProgram {
  public:
    virtual ~PreparedTensorProgram() = default;
    // New values for an input table (its complete values).
    virtual Status setInput(uint32_t table, std::span<const double> values) = 0;
    // New values for several input tables (a run's evidence): one copy on a GPU where they lie
    // side by side there; by default one setInput each.
    virtual Status setInputs(std::span<const uint32_t> tables,
                             std::span<const std::span<const double>> values);
    // The tables the program fetches (every computed table where `fetch` is empty).
    virtual Result<CompleteTables> run() = 0;
    // After run(), where the executor's decodesCases(): the VALUE phase (recoverAssignment with
    // `pinned`) of `cases` assignments of a batched program, over the tables where they are;
    // `assignments` and `pinned` hold one row of program.domainSizes.size() entries per case;
    // `tied` returns per case whether the walk met a tie (recoverAssignment's `tied`).
    virtual Status decodeCases(std::vector<uint32_t> &assignments,
                               const std::vector<uint8_t> &pinned, uint32_t cases,
                               std::vector<uint8_t> &tied);
};

class TensorExecutor {
  public:
    virtual ~TensorExecutor() = default;
    // Complete values of every computed table.
    virtual Result<CompleteTables> run(const TensorProgram &program) = 0;
    // A program marked by markIncomplete (ir/incomplete_tables.h): cpu keeps only the feasible
    // rows, and cuda and split run it there; the reference returns complete tables capped at the
    // bound (the oracle).
    virtual Result<IncompleteTables> runIncomplete(const TensorProgram &program) = 0;
    // Bytes of tables one run may hold where it runs, what batched callers size their batches by:
    // on the host a quarter of the memory available now; on a GPU 0.6 of its free memory.
    // `releasedBytes`, which the caller holds and will free first, count as available.
    virtual Result<uint64_t> memoryBudgetBytes(uint64_t releasedBytes = 0);
    // The program run and its VALUE phase done (recoverAssignment): `assignment` arrives with
    // evidence and defaults filled in and returns completed. By default run() then the VALUE phase
    // on the host; the GPU decodes on the device instead, where its tables are.
    virtual Result<SolvedProgram> solve(const TensorProgram &program,
                                        std::vector<uint32_t> &assignment);
    // By default a copy of the program, run through run() each time.
    virtual Result<std::unique_ptr<PreparedTensorProgram>> prepare(const TensorProgram &program);
    // Whether its prepared programs decode batches of cases themselves (the GPU: where the
    // tables are), so that run() need fetch only what the caller reads besides.
    virtual bool decodesCases() const { return false; }
};

using TensorExecutorFactory =
    Result<std::unique_ptr<TensorExecutor>> (*)(const TensorExecutorOptions &options);

struct TensorExecutorEntry {
    std::string_view name;
    TensorExecutorFactory make;
};

// reference, cpu, cuda, split: each once.
std::span<const TensorExecutorEntry> tensorExecutors();

// The executor called `name` in tensorExecutors(), or "auto": cuda where gpuUsable(), else
// cpu. An unknown name fails, listing the known ones.
Result<std::unique_ptr<TensorExecutor>> makeTensorExecutor(std::string_view name,
                                                           const TensorExecutorOptions &options = {});

// `switches` with ZBDDC_GPU_GRAPH (1 or 0), ZBDDC_GPU_FLOAT32=0 and
// ZBDDC_GPU_PROFILE=FILE laid over them where `lookup` has them (docs/cli.md). Only a program's
// edge calls it, with std::getenv; the switches then travel in options (pipeline::Target).
cuda::GpuSwitches gpuSwitchesFromVariables(const VariableLookup &lookup,
                                           cuda::GpuSwitches switches = {});

// The GPUs (ordinals, logical repeats kept) that a `--devices` text names on this machine
// (device_list.h); an error names the GPUs there are, or says why none is usable.
Result<std::vector<int>> resolveGpuRequest(std::string_view text);

} // namespace zbddc
