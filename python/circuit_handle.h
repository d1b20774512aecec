// One knowledge-compiled circuit (.nnf, or .sdd with its .vtree) as Python's zbddc.Circuit holds
// it: the weighted model count over a batch of literal weightings, and its gradient by every
// weight (the neurosymbolic batch: one circuit, B weightings). Each vector is the circuit's
// literal weights w(x_v = 0), w(x_v = 1) for v = 1..n, in that order: the varying inputs of
// literalWeightBatch (compiler/frontends/circuits/literal_weights.h), so a (B, n, 2) array is
// the batch as it lies in memory. The indicators stay 1.
#pragma once

#include "runtime/model.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace zbddc::python {

// What zbddc.Circuit() passes down.
struct CircuitRequest {
    std::string path;
    std::string vtree;                    // an .sdd's vtree; "": the .vtree beside it
    std::string device = "auto";          // auto | cpu | cuda
    std::string semiring = "probability"; // probability (float64) | log (natural logs)
    int gpu = 0;                          // the GPU's ordinal where it runs on one
};

class CircuitHandle {
  public:
    static Result<std::unique_ptr<CircuitHandle>> open(const CircuitRequest &request);

    const std::string &path() const { return path_; }
    uint32_t numVars() const { return numVars_; }
    size_t numOps() const { return ops_; }
    bool logSpace() const { return numeric_ == Numeric::Log; }
    bool onGpu() const { return model_->device() == DeviceKind::Cuda; }
    int gpu() const { return gpu_; }
    DeviceReport report() const { return model_->report(numeric_); }

    // count × 2n linear weights in host memory: count values (WMC, or ln WMC in log space) and,
    // with `gradient`, count × 2n adjoints (∂WMC/∂w; in log space ln ∂WMC/∂w).
    struct Pass {
        std::vector<double> values, adjoints;
    };
    Result<Pass> forward(std::span<const double> weights, size_t count, bool gradient);
    // The same with every array in the GPU's memory (addresses on GPU gpu()): `weights` read,
    // `values` (count) and, where not 0, `adjoints` (count × 2n) written; the pass runs on the
    // legacy default stream and is waited for. Fails where the circuit is not on a GPU.
    Status forwardOnDevice(uint64_t weights, size_t count, uint64_t values, uint64_t adjoints);

  private:
    std::string path_;
    uint32_t numVars_ = 0;
    size_t ops_ = 0;
    Numeric numeric_ = Numeric::Float64;
    int gpu_ = 0;
    std::vector<double> shared_;    // every input 1: the indicators, and weights until replaced
    std::vector<uint32_t> varying_; // the weight inputs, ascending
    std::optional<Model> model_;
    std::mutex busy_; // one pass at a time: the model's engines and buffers are not shared
};

} // namespace zbddc::python
