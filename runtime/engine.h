// One compiled evaluator of a model for a fixed semiring and numeric mode: the reference
// evaluator, the LLVM JIT, the CUDA backend, or a dlopened model.so. runtime/model.h picks and
// caches them; nothing else uses this interface.
#pragma once

#include "ir/circuit.h"
#include "ir/input_batch.h"
#include "ir/interpret.h"
#include "ir/traced_terms.h"
#include "runtime/device.h"
#include "runtime/enqueued_pass.h"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace zbddc {

class Engine {
  public:
    virtual ~Engine() = default;
    // What the engine adds to the device's description (Model::describe), or "".
    virtual std::string note() const { return {}; }
    // Waits for what the engine still builds in the background and takes it up (the GPU's kernels
    // compiled for the circuit's types, while interpreted ones run).
    virtual Status settle() { return Ok{}; }
    // x: batch × numInputs, linear values. Returns batch × numOutputs (natural logs in Log mode).
    virtual Result<std::vector<double>> evaluate(std::span<const double> x, size_t batch) = 0;
    // batch × numInputs adjoints for one output (as inputAdjoints in ir/interpret.h).
    virtual Result<std::vector<double>> adjoints(std::span<const double> x, size_t batch,
                                                 size_t output) = 0;
    // Both in one call: a backend whose adjoint pass computes the forward values returns them
    // (the GPU's, whose every pass also copies the inputs in); the others evaluate as well.
    virtual Result<PassValues> forwardBackward(std::span<const double> x, size_t batch,
                                               size_t output) {
        auto outputs = evaluate(x, batch);
        if (!outputs)
            return outputs.error();
        auto adj = adjoints(x, batch, output);
        if (!adj)
            return adj.error();
        return PassValues{std::move(*outputs), std::move(*adj)};
    }
    // A backward pass from `output` over a batch of shared and varying inputs
    // (ir/input_batch.h): the varying inputs' adjoints only (batch.count × varying.size()), and
    // with `withOutputs` every output's value as evaluate() gives them. A backend that moves
    // inputs to a device moves the shared ones once and overrides this; the others take the
    // vectors whole.
    virtual Result<PassValues> varyingPass(const InputBatch &batch, size_t output,
                                           bool withOutputs) {
        const std::vector<double> x = batch.dense();
        PassValues pass;
        if (withOutputs) {
            auto both = forwardBackward(x, batch.count, output);
            if (!both)
                return both.error();
            pass = std::move(*both);
        } else {
            auto adj = adjoints(x, batch.count, output);
            if (!adj)
                return adj.error();
            pass.adjoints = std::move(*adj);
        }
        pass.adjoints = batch.varyingColumns(pass.adjoints);
        return pass;
    }
    // Right after evaluate() of `batch` vectors, where the backend keeps their forward values (a
    // GPU's, one launch's worth): inputs [firstInput, firstInput + width) replaced by `rows`
    // (batch × width) and a backward pass from `output` alone, adjoints as adjoints() gives
    // them; nullopt where the backend cannot (the caller runs adjoints() whole). Only for inputs
    // no value the backward pass reads depends on (the seed weights of
    // runtime/engine_host_phases.h).
    virtual std::optional<Result<std::vector<double>>>
    adjointsAfterEvaluate(std::span<const double> rows, size_t firstInput, size_t width,
                          size_t batch, size_t output) {
        (void)rows, (void)firstInput, (void)width, (void)batch, (void)output;
        return std::nullopt;
    }
    // evaluate() over such a batch.
    virtual Result<std::vector<double>> varyingEvaluate(const InputBatch &batch) {
        return evaluate(batch.dense(), batch.count);
    }
    // The inputs on one optimal term (max/min semirings), for backends that trace back; nullopt
    // where the backend cannot (runtime/mpe_decode.h decodes from adjoints then).
    virtual std::optional<Result<std::vector<uint32_t>>> traceback(std::span<const double> x,
                                                                   size_t output) {
        (void)x, (void)output;
        return std::nullopt;
    }
    // Max/min semirings over such a batch: every output and one optimal term per vector, for
    // backends that walk a whole batch at once (the GPU, the CPU's loop and JIT: one forward
    // pass, one walk per case);
    // nullopt for the others (runtime/mpe_decode.h decodes from adjoints then).
    virtual std::optional<Result<TracedTerms>> varyingTraceback(const InputBatch &batch,
                                                                size_t output) {
        (void)batch, (void)output;
        return std::nullopt;
    }
    // The forward pass (and the adjoints of output `adjointsOf`, or one optimal term per vector
    // of output `tracebackOf`) enqueued on the caller's CUDA stream, for engines on a GPU;
    // nullopt for the others (they have no stream to enqueue on).
    virtual std::optional<Result<std::unique_ptr<EnqueuedPass>>>
    enqueue(std::span<const double> x, size_t batch, std::optional<size_t> adjointsOf,
            std::optional<size_t> tracebackOf, void *cudaStream) {
        (void)x, (void)batch, (void)adjointsOf, (void)tracebackOf, (void)cudaStream;
        return std::nullopt;
    }
    // varyingEvaluate, with `adjointsOf` also that output's varying adjoints, over a batch whose
    // values and results are in the GPU's memory (DeviceInputBatch), on the caller's CUDA stream
    // or, where null, waited for; nullopt for engines that hold no whole circuit on a GPU.
    virtual std::optional<Status> passOnDevice(const DeviceInputBatch &batch,
                                               std::optional<size_t> adjointsOf, void *cudaStream) {
        (void)batch, (void)adjointsOf, (void)cudaStream;
        return std::nullopt;
    }
};

// The circuit must outlive the engine.
Result<std::unique_ptr<Engine>> referenceEngine(const Circuit &circuit, Semiring semiring,
                                                Numeric numeric);
Result<std::unique_ptr<Engine>> cpuJitEngine(const Circuit &circuit, Semiring semiring,
                                             Numeric numeric, int optLevel,
                                             bool dataDriven = false);
// Fails with the reason where this build has no CUDA backend or no GPU is usable. `lanes` 1 is
// latency mode (one vector per launch, with the device's traceback); more is throughput mode:
// that many vectors per launch, lane-fastest.
Result<std::unique_ptr<Engine>> cudaEngine(const Circuit &circuit, Semiring semiring,
                                           Numeric numeric, uint32_t lanes = 1, int gpu = 0);
// Lanes for a batch of `batch` vectors: a power of two up to the batch and `maxLanes`, as many
// as half the free device memory holds (every node's value and adjoint per lane).
// 2,048 by measurement (H200, 2,000 Fast-BNI cases): each level's launch or grid barrier is a
// fixed cost, and the MAR pass per case fell 1.5-2.3x from 512 lanes (bench/results/NOTEBOOK.md).
inline constexpr uint32_t kMaxCudaLanes = 2048;
uint32_t cudaLanesFor(const Circuit &circuit, size_t batch, int gpu = 0,
                      uint32_t maxLanes = kMaxCudaLanes);

// "NVIDIA H100 80GB HBM3" for GPU `gpu`, or "" where none is usable.
std::string cudaDeviceName(int gpu = 0);

} // namespace zbddc
