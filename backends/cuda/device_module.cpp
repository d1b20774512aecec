#include "backends/cuda/device_module.h"

namespace zbddc::cuda {

Result<DeviceModule> compileForDevice(Device &device, const std::string &source,
                                      const std::string &name, NvrtcOptions options) {
    options.arch = device.info().arch();
    auto image = compileForArch(source, name, options);
    if (!image)
        return image.error();
    auto module = device.loadModule(image->image);
    if (module)
        return DeviceModule{std::move(*module), image->fromCache, image->cubin};
    if (!image->cubin)
        return module.error();
    auto ptx = compileToPtx(source, name, options);
    if (!ptx)
        return ptx.error();
    auto again = device.loadModule(ptx->ptx);
    if (!again)
        return error(module.error().message + "; as PTX: " + again.error().message);
    return DeviceModule{std::move(*again), ptx->fromCache, false};
}

} // namespace zbddc::cuda
