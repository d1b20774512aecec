#include "backends/cuda/device_module.h"

namespace zbddc::cuda {

Result<DeviceModule> compileForDevice(Device &device, const std::string &source,
                                      const std::string &name, NvrtcOptions options) {
    options.arch = device.info().arch();
    auto ptx = compileToPtx(source, name, options);
    if (!ptx)
        return ptx.error();
    auto module = device.loadModule(ptx->ptx);
    if (!module)
        return module.error();
    return DeviceModule{std::move(*module), ptx->fromCache};
}

} // namespace zbddc::cuda
