#include "backends/tensor/cuda/run/incomplete_gpu.h"

#include "backends/cuda/driver.h"
#include "backends/cuda/device_module.h"
#include "backends/tensor/cuda/codegen/incomplete_kernels.h"
#include "backends/tensor/cuda/run/incomplete_run.h"
#include "support/timer.h"

#include <chrono>
#include <map>

namespace zbddc::cuda {

namespace {

// The driver-backed device of incomplete_run: pooled buffers, synchronous copies, launches on
// the default stream (so every kernel sees the previous one's writes).
class GpuKernelDevice : public incomplete::KernelDevice {
  public:
    GpuKernelDevice(Device &d, const Module &m) : d_(d), m_(m) {}

    Result<Buffer> allocate(size_t bytes) override {
        auto buf = d_.allocate(bytes);
        if (!buf)
            return buf.error();
        auto owner = std::make_shared<DeviceBuffer>(std::move(*buf));
        return Buffer{owner->ptr(), owner};
    }
    Status upload(Ptr dst, const void *src, size_t bytes) override {
        return d_.upload(dst, src, bytes);
    }
    Status download(void *dst, Ptr src, size_t bytes) override {
        return d_.download(dst, src, bytes);
    }
    Status launch(const std::string &kernel, unsigned grid, unsigned block, void **args) override {
        auto f = functions_.find(kernel);
        if (f == functions_.end()) {
            auto h = m_.function(kernel);
            if (!h)
                return h.error();
            f = functions_.emplace(kernel, *h).first;
        }
        return d_.launch(f->second, {grid, block, 0}, args);
    }
    unsigned maxGrid() const override { return unsigned(d_.info().multiprocessors) * 32; }

  private:
    Device &d_;
    const Module &m_;
    std::map<std::string, FunctionHandle> functions_;
};

} // namespace

Result<std::vector<TableData>> runIncompleteTensorProgramCuda(const TensorProgram &program,
                                                              const IncompleteGpuOptions &options,
                                                              IncompleteGpuStats *stats) {
    IncompleteGpuStats st;
    if (Status s = refuseMessageOps(program, "the GPU's incomplete tables"); !s)
        return s.error();
    auto device = openDevice();
    if (!device)
        return device.error();
    Device &d = **device;
    st.device = d.info().label();
    auto t0 = std::chrono::steady_clock::now();
    auto compiled = compileForDevice(d, incompleteKernelSource(), "zbddc_incomplete_tables.cu");
    if (!compiled)
        return compiled.error();
    st.compiledFromCache = compiled->fromCache;
    const Module &module = compiled->module;
    st.compileMs = msSince(t0);
    t0 = std::chrono::steady_clock::now();
    GpuKernelDevice kernels(d, module);
    auto computed = incomplete::runIncompleteOnDevice(kernels, program, {options.maxRows});
    st.runMs = msSince(t0);
    if (stats)
        *stats = st;
    return computed;
}

} // namespace zbddc::cuda
