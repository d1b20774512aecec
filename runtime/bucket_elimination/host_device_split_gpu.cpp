// The host/device split on a real GPU: the CUDA session (backends/tensor/cuda/
// tensor_gpu_session.h) as the SplitDevice of runTensorProgramSplit. Built only with the CUDA
// tensor backend.
#include "runtime/bucket_elimination/host_device_split_gpu.h"

#include "backends/tensor/cuda/tensor_gpu_session.h"

#include <cstdio>

namespace zbddc {

namespace {
class GpuSplitDevice final : public SplitDevice {
  public:
    explicit GpuSplitDevice(cuda::TensorGpuSession &s) : session_(s) {}
    Status upload(uint32_t table, const std::vector<double> &values) override {
        return session_.upload(table, values);
    }
    Status launch(const std::vector<uint32_t> &ops) override { return session_.launch(ops); }
    Status wait() override { return session_.wait(); }
    Status download(uint32_t table, std::vector<double> &values) override {
        return session_.download(table, values);
    }

  private:
    cuda::TensorGpuSession &session_;
};
} // namespace

Result<std::vector<std::vector<double>>> runSplitOnGpu(const TensorProgram &program,
                                                       uint64_t thresholdEntries,
                                                       unsigned hostThreads, std::string &device) {
    const SplitPlan plan = planHostDeviceSplit(program, thresholdEntries);
    std::unique_ptr<cuda::TensorGpuSession> session;
    if (plan.deviceOps > 0) { // an all-host plan needs no GPU (nor a kernel compile)
        auto opened = cuda::TensorGpuSession::open(program);
        if (!opened)
            return opened.error();
        session = std::move(*opened);
    }
    class NoDevice final : public SplitDevice {
        Status upload(uint32_t, const std::vector<double> &) override { return fail(); }
        Status launch(const std::vector<uint32_t> &) override { return fail(); }
        Status wait() override { return fail(); }
        Status download(uint32_t, std::vector<double> &) override { return fail(); }
        static Status fail() { return error("internal error: an all-host plan used the device"); }
    } none;
    std::unique_ptr<GpuSplitDevice> gpu;
    if (session)
        gpu = std::make_unique<GpuSplitDevice>(*session);
    SplitDevice &target = gpu ? static_cast<SplitDevice &>(*gpu) : none;
    auto computed = runTensorProgramSplit(program, plan, target, hostThreads);
    char what[200];
    std::snprintf(what, sizeof what, "split (threshold %llu entries: %zu ops on the host, %zu on ",
                  static_cast<unsigned long long>(thresholdEntries), plan.hostOps, plan.deviceOps);
    device = what + (session ? "cuda: " + session->deviceName() : std::string("no device")) + ")";
    return computed;
}

} // namespace zbddc
