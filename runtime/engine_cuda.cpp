// The CUDA backend (backends/cuda) behind the Engine interface: float64 (or log-float64) in
// latency mode, with the device's own traceback. Builds without NVRTC get the reason instead.
#include "runtime/engine.h"

#ifdef ZBDDC_HAVE_CUDA_BACKEND
#include "backends/cuda/cuda_model.h"
#endif

namespace zbddc {

#ifdef ZBDDC_HAVE_CUDA_BACKEND
namespace {

class CudaEngine final : public Engine {
  public:
    explicit CudaEngine(cuda::CudaModel m) : m_(std::move(m)) {}

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

    std::optional<Result<std::vector<uint32_t>>> traceback(std::span<const double> x,
                                                           size_t output) override {
        return m_.traceback(x, output);
    }

  private:
    cuda::CudaModel m_;
};

} // namespace

Status cudaUsable() { return cuda::cudaAvailable(); }

std::string cudaDeviceName() {
    if (!cuda::cudaAvailable())
        return "";
    auto info = cuda::deviceInfo(0);
    return info ? info->name : "";
}

Result<std::unique_ptr<Engine>> cudaEngine(const Circuit &c, Semiring s, Numeric n) {
    if (Status usable = cudaUsable(); !usable)
        return usable.error();
    cuda::CudaOptions o;
    o.semiring = s;
    o.precision = cuda::Precision::Float64;
    o.logSpace = n == Numeric::Log;
    auto m = cuda::compileCuda(c, o);
    if (!m)
        return m.error();
    return std::unique_ptr<Engine>(new CudaEngine(std::move(*m)));
}

#else

Status cudaUsable() { return error("this build has no CUDA backend (NVRTC was not found)"); }

std::string cudaDeviceName() { return ""; }

Result<std::unique_ptr<Engine>> cudaEngine(const Circuit &, Semiring, Numeric) {
    return cudaUsable().error();
}

#endif

} // namespace zbddc
