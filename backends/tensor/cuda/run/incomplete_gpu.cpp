#include "backends/tensor/cuda/run/incomplete_gpu.h"

#include "backends/cuda/device_module.h"
#include "backends/cuda/driver.h"
#include "backends/tensor/cuda/codegen/incomplete_kernels.h"
#include "backends/tensor/cuda/device/gpu_tensor_device.h"
#include "ir/try.h"
#include "support/timer.h"

#include <chrono>

namespace zbddc::cuda {

Result<std::vector<TableData>> runIncompleteTensorProgramCuda(const TensorProgram &program,
                                                              const IncompleteGpuOptions &options,
                                                              IncompleteGpuStats *stats) {
    IncompleteGpuStats st;
    ZBDDC_TRY(refuseMessageOps(program, "the GPU's incomplete tables"));
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
    GpuDeviceOptions o;
    o.streams = 1;
    o.namedKernels = &module;
    auto gpu = GpuTensorDevice::open(d, program, o, {});
    if (!gpu)
        return gpu.error();
    auto computed = incomplete::runIncompleteOnDevice(**gpu, program, options);
    st.runMs = msSince(t0);
    if (stats)
        *stats = st;
    return computed;
}

} // namespace zbddc::cuda
