#include "backends/tensor/cuda/tensor_modules.h"

#include "backends/cuda/device_module.h"
#include "backends/cuda/nvrtc.h"

#include <algorithm>
#include <future>
#include <thread>

namespace zbddc::cuda {

namespace {
// Ops per module at least: below this a compile is short and one module keeps one cache entry.
constexpr size_t kOpsPerGroup = 64;
} // namespace

Result<TensorModules> TensorModules::compile(Device &device, const TensorProgram &program,
                                             const TensorKernelOptions &options) {
    const size_t ops = program.ops.size();
    const size_t threads = std::max(1u, std::thread::hardware_concurrency());
    const size_t groups = std::clamp<size_t>(ops / kOpsPerGroup, 1, threads);
    TensorModules out;
    out.moduleOf_.resize(ops);
    std::vector<std::vector<uint32_t>> members(groups);
    for (uint32_t o = 0; o < ops; ++o) { // consecutive ops together: a level's kernels are near
        out.moduleOf_[o] = static_cast<uint32_t>(o * groups / std::max<size_t>(ops, 1));
        members[out.moduleOf_[o]].push_back(o);
    }
    NvrtcOptions nvrtc;
    nvrtc.arch = device.info().arch();
    std::vector<std::future<Result<CompiledPtx>>> ptx;
    for (const std::vector<uint32_t> &group : members)
        ptx.push_back(std::async(std::launch::async, [&, group] {
            return compileToPtx(generateTensorProgramSource(program, options, group),
                                "zbddc_tensor_program.cu", nvrtc);
        }));
    for (auto &f : ptx) { // loading stays on this thread (the device's context)
        auto compiled = f.get();
        if (!compiled)
            return compiled.error();
        out.fromCache_ = out.fromCache_ && compiled->fromCache;
        auto module = device.loadModule(compiled->ptx);
        if (!module)
            return module.error();
        out.modules_.push_back(std::move(*module));
    }
    return out;
}

Result<FunctionHandle> TensorModules::function(uint32_t op) const {
    return modules_[moduleOf_[op]].function(tensorKernelName(op));
}

} // namespace zbddc::cuda
