// A model ready to answer queries: a Circuit (or a dlopened model.so) plus the backend that
// evaluates it — the LLVM JIT, the CUDA backend or the reference evaluator — compiled lazily once
// per (semiring, numeric) pair and kept. DeviceKind::Auto takes CUDA where a GPU is usable and the
// JIT otherwise, and remembers why, so a run can say what it fell back from.
#pragma once

#include "ir/circuit.h"
#include "ir/input_batch.h"
#include "ir/interpret.h"
#include "ir/model_interface.h"
#include "ir/traced_terms.h"
#include "runtime/device.h"
#include "runtime/enqueued_pass.h"
#include "runtime/float32_bound.h"

#include <future>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace zbddc {

struct DeviceOptions {
    DeviceKind device = DeviceKind::Auto;
    int cpuOptLevel = 0; // the JIT's -O level (0: linear-time fast path)
    // What DeviceKind::Cpu runs: LLVM-JIT straight-line code, or the data-driven batched loop
    // (backends/cpu/batched_loop.h: no code generation). Auto decides at the model's first call
    // from the circuit's size and that call's batch (cpuRunsLoop).
    enum class CpuCode : uint8_t { Auto, Jit, Loop };
    CpuCode cpuCode = CpuCode::Auto;
    int gpu = 0; // DeviceKind::Cuda (or Auto taking it): the GPU's ordinal
    // The most cases one GPU launch holds (a power of two; 0: the runtime's default). More lanes
    // spread each level's fixed cost (its launch or grid barrier) over more cases, and hold a
    // value and an adjoint per node per lane (at most half the free memory is taken).
    uint32_t cudaMaxLanes = 0;
    // On the GPU, the circuit's leading and trailing levels of at most this many ops run on the
    // host's LLVM JIT (Minato et al. 2011's CPU phases; runtime/engine_host_phases.h) for PR and
    // MAR in float64; 0: every level on the GPU. Unset: kOneCaseHostLevelOps for one case at a
    // time, none for batches, by measurement (bench/results/NOTEBOOK.md, "Host phases").
    std::optional<uint32_t> hostLevelOps = {};
    // Why the caller chose this device, said in describe() ("auto: one case"); empty: nothing.
    std::string choice = {};
};

// A batch of one on the H200 ran its MAR pass 6-16% faster with the levels of at most 128 ops
// at the circuit's ends on the host (alarm, insurance, hailfinder, water, pathfinder; the model
// kept, warm); batches of 2,000 ran 8-114x slower with any, so batches keep every level on the
// GPU. A process's first pass pays more for them than it saves: the command line asks for none.
inline constexpr uint32_t kOneCaseHostLevelOps = 128;

// Auto's choice: the loop builds in microseconds to milliseconds where the JIT takes tens to
// hundreds, and from about 10^4 ops its batch throughput matches or beats the JIT's (whose code
// outgrows the caches); the JIT pays only on smaller circuits over batches of 10^4 cases or more
// (bench/results/NOTEBOOK.md "The CPU code for a run, chosen").
bool cpuRunsLoop(size_t circuitOps, size_t batch);

class Model {
  public:
    // Chooses the device now (Auto, or Cuda without a usable GPU, become Cpu with a note);
    // backends compile on first use.
    static Model fromCircuit(Circuit circuit, const DeviceOptions &options = {});
    // The same circuit on GPU `ordinal` (its own engines), for batches split over devices; fails
    // for a model that does not run on a GPU (the CPU, a model.so).
    Result<Model> onGpu(int ordinal) const;
    // A model.so from `zbddc MODEL -o model.so`: its compiled-in semiring and numeric mode only.
    static Result<Model> fromSharedObject(const std::string &path);

    Model(Model &&) noexcept;
    Model &operator=(Model &&) noexcept;
    ~Model();

    // Semiring, variables, inputs and output names: what evidence and the tasks need, the same
    // for a circuit and a model.so.
    const ModelInterface &interface() const;
    // The circuit evaluated (what float32's error bound is derived from); null for a model.so.
    const Circuit *circuit() const;
    // Float32's error-bound analysis of the circuit for `batch` (runtime/float32_bound.h),
    // kept for the batches after it with the same input ranges; a circuit's model only.
    const Float32Analysis &float32Analysis(Numeric numeric, const InputBatch &batch);
    size_t numInputs() const;
    size_t numOutputs() const;
    DeviceKind device() const; // what runs: Cpu, Cuda or Reference (Cpu for a model.so)
    // Why the requested device was not taken ("cuda unavailable: ..."), or "".
    const std::string &fallbackNote() const;
    // A model.so evaluates only what it was compiled for; circuits take any pair.
    std::optional<Semiring> fixedSemiring() const;
    std::optional<Numeric> fixedNumeric() const;
    // Where `numeric` runs, with the fallback note and `extra` (e.g. how an MPE assignment was
    // found) in its notes; describe() is its label: "cpu (LLVM JIT, float64)",
    // "cuda: NVIDIA H100 80GB HBM3 (log)", "cpu (model.so, float64)".
    DeviceReport report(Numeric numeric, std::string_view extra = {}) const;
    std::string describe(Numeric numeric, std::string_view extra = {}) const;

    // Compiles what evaluate() and adjoints() of `batch` vectors will run, so that timing them
    // leaves the compile out (it happens on first use otherwise).
    Status prepare(Semiring s, Numeric n, size_t batch = 1);
    // prepare(), then waits for what it left building in the background: on the GPU, where the
    // kernels compiled for the circuit's types were not cached, interpreted ones may answer until
    // they are built (GpuSettings::opTypes); after settle() the passes run the final ones.
    Status settle(Semiring s, Numeric n, size_t batch = 1);
    // x: batch × numInputs, linear values. Returns batch × numOutputs (natural logs in Log mode).
    Result<std::vector<double>> evaluate(Semiring s, Numeric n, std::span<const double> x,
                                         size_t batch = 1);
    // batch × numInputs adjoints for one output (ir/interpret.h's inputAdjoints).
    Result<std::vector<double>> adjoints(Semiring s, Numeric n, std::span<const double> x,
                                         size_t batch, size_t output);
    // evaluate() and adjoints() of `output` together, from one pass where the backend can.
    Result<PassValues> forwardBackward(Semiring s, Numeric n, std::span<const double> x,
                                       size_t batch, size_t output);
    // The same three over a batch of shared and varying inputs (ir/input_batch.h; an evidence
    // batch: runtime/evidence.h's evidenceBatch): the adjoints are the varying inputs' only,
    // batch.count × varying.size(). On the GPU the shared inputs are uploaded once and kept, and
    // per batch only the varying ones move, in and back.
    Result<std::vector<double>> evaluate(Semiring s, Numeric n, const InputBatch &batch);
    Result<std::vector<double>> adjoints(Semiring s, Numeric n, const InputBatch &batch,
                                         size_t output);
    Result<PassValues> forwardBackward(Semiring s, Numeric n, const InputBatch &batch,
                                       size_t output);
    // The inputs on one optimal term for one vector (max/min semirings), or nullopt where the
    // backend has no traceback (the JIT, a model.so).
    std::optional<Result<std::vector<uint32_t>>> traceback(Semiring s, Numeric n,
                                                           std::span<const double> x, size_t output);
    // One optimal term per vector of a batch (max/min semirings), where the backend walks a
    // whole batch at once (the GPU); nullopt where it does not.
    std::optional<Result<TracedTerms>> traceback(Semiring s, Numeric n, const InputBatch &batch,
                                                 size_t output);

    // The forward pass of `batch` vectors (with the adjoints of output `adjointsOf`, if given;
    // or, max/min semirings, one optimal term per vector of output `tracebackOf`, walked on the
    // device: PassValues::traced) enqueued on the caller's CUDA stream `cudaStream` (a CUstream
    // of the model's GPU) for a model on the GPU; returns once enqueued (the engine compiles
    // first on first use). nullopt where the model does not run on a GPU. No other call on this
    // model until the pass is waited for: it runs in the engine's own device buffers.
    std::optional<Result<std::unique_ptr<EnqueuedPass>>>
    enqueue(Semiring s, Numeric n, std::span<const double> x, size_t batch,
            std::optional<size_t> adjointsOf, void *cudaStream,
            std::optional<size_t> tracebackOf = std::nullopt);

    // evaluate() over a batch (and, with `adjointsOf`, forwardBackward()'s varying adjoints of
    // that output) whose varying values are in the model's GPU's memory, its results written
    // there (ir/input_batch.h's DeviceInputBatch: a PyTorch CUDA tensor of weights, say): nothing
    // goes through the host but the shared inputs, once. In log space the log of each value is
    // taken on the device (it may differ from the host's in the last bit; a negative value gives
    // NaN, unchecked). Enqueued on the caller's CUDA stream `cudaStream` (a CUstream of the model's
    // GPU), returning at once; where null, on the legacy default stream, waited for. nullopt
    // where the model does not run the whole circuit on a GPU (the CPU, a model.so, host
    // phases). No other call on this model until the stream has run the pass.
    std::optional<Status> passOnDevice(Semiring s, Numeric n, const DeviceInputBatch &batch,
                                       std::optional<size_t> adjointsOf,
                                       void *cudaStream = nullptr);

    // evaluate() on another thread (std::async). The model may be moved but must outlive the
    // future, and calls on one model must not overlap (a compiled backend is not shared). The
    // tasks' asynchronous API, on a caller's CUDA stream, is runTasksAsync (runtime/tasks_async.h).
    std::future<Result<std::vector<double>>> evaluateAsync(Semiring s, Numeric n,
                                                           std::vector<double> x, size_t batch);

    struct Impl;

  private:
    explicit Model(std::unique_ptr<Impl> impl);
    Result<PassValues> varyingPass(Semiring s, Numeric n, const InputBatch &batch, size_t output,
                                   bool withOutputs);
    std::unique_ptr<Impl> impl_;
};

} // namespace zbddc
