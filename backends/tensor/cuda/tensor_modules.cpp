#include "backends/tensor/cuda/tensor_modules.h"
#include "support/progress.h"

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
    // Each thread compiles its group and loads it: loading PTX runs the driver's own compiler
    // (ptxas), as slow as NVRTC, so it must not be serial either.
    struct Loaded {
        Module module;
        bool fromCache = false;
    };
    std::vector<std::future<Result<Loaded>>> loaded;
    for (const std::vector<uint32_t> &group : members)
        loaded.push_back(std::async(std::launch::async, [&, group]() -> Result<Loaded> {
            auto ptx = compileToPtx(generateTensorProgramSource(program, options, group),
                                    "zbddc_tensor_program.cu", nvrtc);
            if (!ptx)
                return ptx.error();
            auto module = device.loadModule(ptx->ptx);
            if (!module)
                return module.error();
            return Loaded{std::move(*module), ptx->fromCache};
        }));
    ProgressLine line("compiling GPU kernels (" + std::to_string(ops) + ") in groups");
    for (size_t g = 0; g < loaded.size(); ++g) {
        auto l = loaded[g].get();
        if (!l)
            return l.error();
        line.update(g + 1, loaded.size());
        out.fromCache_ = out.fromCache_ && l->fromCache;
        out.modules_.push_back(std::move(l->module));
    }
    return out;
}

Result<FunctionHandle> TensorModules::function(uint32_t op) const {
    return modules_[moduleOf_[op]].function(tensorKernelName(op));
}

} // namespace zbddc::cuda
