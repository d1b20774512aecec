// The CUDA backend (backends/cuda) behind the Engine interface: float64 or float32, linear or log,
// in latency mode (with the device's own traceback) or throughput mode (B lanes per launch, and a
// batch's optimal terms traced on the device). Builds
// without NVRTC get the reason instead.
#include "runtime/engine.h"

#include <algorithm>
#include <memory>

#ifdef ZBDDC_HAVE_CUDA_BACKEND
#include "backends/cuda/cuda_model.h"
#include "runtime/cuda_circuit.h"
#include "support/gpu_settings.h"
#endif

namespace zbddc {

#ifdef ZBDDC_HAVE_CUDA_BACKEND
namespace {

// A batch on the caller's stream, seen through the runtime's EnqueuedPass.
class CudaEnqueuedPass final : public EnqueuedPass {
  public:
    CudaEnqueuedPass(const cuda::CudaModel &m, cuda::EnqueuedBatch b) : m_(m), b_(std::move(b)) {}
    Result<bool> ready() override { return b_.ready(); }
    Result<PassValues> wait() override {
        auto v = m_.results(b_);
        if (!v)
            return v.error();
        return PassValues{std::move(v->outputs), std::move(v->adjoints), std::move(v->traced)};
    }

  private:
    const cuda::CudaModel &m_;
    cuda::EnqueuedBatch b_;
};

class CudaEngine final : public Engine {
  public:
    explicit CudaEngine(cuda::CudaModel m) : m_(std::move(m)) {}

    Status settle() override { return m_.awaitCompiledTypes(); }

    Result<std::vector<double>> evaluate(std::span<const double> x, size_t batch) override {
        return m_.evaluate(x, batch);
    }

    Result<std::vector<double>> adjoints(std::span<const double> x, size_t batch,
                                         size_t output) override {
        auto g = m_.adjoints(x, batch, output);
        if (!g)
            return g.error();
        return std::move(g->adjoints);
    }

    // The adjoint pass's values are the output's: one pass where the circuit has one output.
    Result<PassValues> forwardBackward(std::span<const double> x, size_t batch,
                                       size_t output) override {
        if (m_.plan().outputSlots.size() != 1)
            return Engine::forwardBackward(x, batch, output);
        auto g = m_.adjoints(x, batch, output);
        if (!g)
            return g.error();
        return PassValues{std::move(g->values), std::move(g->adjoints)};
    }

    std::optional<Result<std::vector<double>>>
    adjointsAfterEvaluate(std::span<const double> rows, size_t firstInput, size_t width,
                          size_t batch, size_t output) override {
        if (batch > m_.shape().batch)
            return std::nullopt; // the last launch's values are kept, not the first's
        return m_.adjointsAfterForward(rows, static_cast<uint32_t>(firstInput),
                                       static_cast<uint32_t>(width), batch, output);
    }

    Result<std::vector<double>> varyingEvaluate(const InputBatch &batch) override {
        return m_.evaluateVarying(batch);
    }

    // The shared inputs stay on the device (CudaModel::adjointsOfVarying); its values are the
    // output's, so the outputs come from the same pass where the circuit has one, and from a
    // forward pass of their own where it has more.
    Result<PassValues> varyingPass(const InputBatch &batch, size_t output,
                                   bool withOutputs) override {
        auto g = m_.adjointsOfVarying(batch, output);
        if (!g)
            return g.error();
        PassValues pass;
        pass.adjoints = std::move(g->adjoints);
        if (withOutputs && m_.plan().outputSlots.size() == 1) {
            pass.outputs = std::move(g->values);
        } else if (withOutputs) {
            auto outputs = m_.evaluateVarying(batch);
            if (!outputs)
                return outputs.error();
            pass.outputs = std::move(*outputs);
        }
        return pass;
    }

    std::optional<Result<std::vector<uint32_t>>> traceback(std::span<const double> x,
                                                           size_t output) override {
        return m_.traceback(x, output);
    }

    std::optional<Result<TracedTerms>> varyingTraceback(const InputBatch &batch,
                                                        size_t output) override {
        return m_.tracebackOfVarying(batch, output);
    }

    std::optional<Result<std::unique_ptr<EnqueuedPass>>>
    enqueue(std::span<const double> x, size_t batch, std::optional<size_t> adjointsOf,
            std::optional<size_t> tracebackOf, void *cudaStream) override {
        auto b = m_.enqueue(x, batch, adjointsOf, cudaStream, tracebackOf);
        if (!b)
            return Result<std::unique_ptr<EnqueuedPass>>(b.error());
        return Result<std::unique_ptr<EnqueuedPass>>(
            std::make_unique<CudaEnqueuedPass>(m_, std::move(*b)));
    }

    std::optional<Status> passOnDevice(const DeviceInputBatch &batch,
                                       std::optional<size_t> adjointsOf,
                                       void *cudaStream) override {
        return m_.passOnDevice(batch, adjointsOf, cudaStream);
    }

  private:
    cuda::CudaModel m_;
};

} // namespace

std::string cudaDeviceName(int gpu) {
    if (!cuda::cudaAvailable())
        return "";
    auto info = cuda::deviceInfo(gpu);
    return info ? info->name : "";
}

uint32_t cudaLanesFor(const Circuit &c, size_t batch, int gpu, uint32_t maxLanes) {
    uint32_t lanes = 1;
    while (lanes < batch && lanes < maxLanes)
        lanes *= 2;
    auto device = cuda::openDevice(gpu);
    if (!device)
        return 1;
    auto memory = (*device)->memoryInfo();
    if (!memory)
        return 1;
    const double perLane = 2.0 * sizeof(double) * static_cast<double>(c.numNodes());
    while (lanes > 1 && perLane * lanes > 0.5 * static_cast<double>(memory->freeBytes))
        lanes /= 2;
    return lanes;
}

Result<std::unique_ptr<Engine>> cudaEngine(const Circuit &c, Semiring s, Numeric n, uint32_t lanes,
                                           int gpu) {
    if (Status usable = gpuUsable(); !usable)
        return usable.error();
    cuda::CudaOptions o;
    o.semiring = s;
    o.precision = isFloat32(n) ? cuda::Precision::Float32 : cuda::Precision::Float64;
    o.logSpace = inLogSpace(n);
    o.batch = std::max<uint32_t>(lanes, 1);
    o.device = gpu;
    o.singleLaunch = gpuSettings.singleLaunch;
    o.opTypes = gpuSettings.opTypes;
    auto m = compileCircuitForCuda(c, o);
    if (!m)
        return m.error();
    return std::unique_ptr<Engine>(new CudaEngine(std::move(*m)));
}

#else

std::string cudaDeviceName(int) {
    return "";
}

Result<std::unique_ptr<Engine>> cudaEngine(const Circuit &, Semiring, Numeric, uint32_t, int) {
    return gpuUsable().error();
}
uint32_t cudaLanesFor(const Circuit &, size_t, int, uint32_t) {
    return 1;
}

#endif

} // namespace zbddc
