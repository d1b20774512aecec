// Which module a CudaModel's kernels come from. A module compiled for the circuit's op types is
// the fastest to run but takes NVRTC 0.5-1 s (a circuit's derivative switch, inlined into every
// gather); the interpreted kernels read the types as data, so their one module serves every
// circuit of a kernel shape and is in the disk cache after the first. Where the compiled module
// is not cached, the interpreted one answers at once while the compiled one builds on another
// thread, and the passes switch to it between launches (CudaOptions::opTypes).
#include "backends/cuda/cuda_model.h"
#include "backends/cuda/device_module.h"

#include <chrono>

namespace zbddc::cuda {

namespace {

constexpr const char *kSourceName = "zbddc_model.cu";

} // namespace

Status CudaModel::lookUpKernels(const Module &module, bool passKernelsOnly) {
    using Entry = std::pair<const char *, FunctionHandle *>;
    std::vector<Entry> entries;
    if (single_)
        entries = {{"zb_forward_single", &fwdSingle_}, {"zb_backward_single", &bwdSingle_}};
    else
        entries = {{"zb_forward_block", &fwdBlock_},
                   {"zb_forward_grid", &fwdGrid_},
                   {"zb_backward_block", &bwdBlock_},
                   {"zb_backward_grid", &bwdGrid_}};
    if (!passKernelsOnly) {
        entries.insert(entries.end(), {Entry{"zb_scatter_rows", &scatterRows_},
                                       Entry{"zb_gather_rows", &gatherRows_},
                                       Entry{"zb_broadcast_rows", &broadcastRows_},
                                       Entry{"zb_rows_from_cases", &rowsFromCases_},
                                       Entry{"zb_cases_from_rows", &casesFromRows_}});
        if (tracesBack(shape_.semiring))
            entries.emplace_back("zb_traceback", &traceback_);
    }
    for (auto [name, fn] : entries) {
        auto f = module.function(name);
        if (!f)
            return f.error();
        *fn = *f;
    }
    return Ok{};
}

Status CudaModel::loadKernels(const CudaOptions &o) {
    NvrtcOptions nv = o.nvrtc;
    nv.arch = device_->info().arch();
    const std::string compiled = generateKernelSource(shape_);
    auto take = [this](DeviceModule &&mod) {
        fromCache_ = mod.fromCache;
        module_ = std::move(mod.module);
        return lookUpKernels(module_, false);
    };
    auto compileNow = [&]() -> Status {
        auto mod = compileForDevice(*device_, compiled, kSourceName, nv);
        if (!mod)
            return mod.error();
        return take(std::move(*mod));
    };
    if (o.opTypes == OpTypeKernels::Compiled)
        return compileNow();

    const InterpretedTypes types = interpretTypes(shape_.typeCode);
    if (types.maxStack > kInterpretedStack) {
        if (o.opTypes == OpTypeKernels::Interpreted)
            return error("an op type needs an evaluation stack of " +
                         std::to_string(types.maxStack) + " values; interpreted kernels hold " +
                         std::to_string(kInterpretedStack));
        return compileNow();
    }
    const bool background = o.opTypes == OpTypeKernels::InterpretedUntilCompiled;
    if (background) { // the compiled module where the cache holds it; without a cache, compiled
        if (!nv.useCache)
            return compileNow();
        NvrtcOptions cached = nv;
        cached.cacheOnly = true;
        if (auto mod = compileForDevice(*device_, compiled, kSourceName, cached))
            return take(std::move(*mod));
    }

    // Interpreted: the types' step words on the device, the module of this shape from the cache
    // (or compiled first: the compiled module's compile starts after it, not competing with it).
    for (auto [dst, src] : {std::pair{&typeBegin_, &types.typeBegin},
                            {&coefBegin_, &types.coefBegin},
                            {&typeSteps_, &types.steps}}) {
        auto buf = uploadArray(*device_, src->empty() ? std::vector<uint32_t>{0} : *src);
        if (!buf)
            return buf.error();
        *dst = std::move(*buf);
    }
    params_.typeBegin = typeBegin_.ptr();
    params_.coefBegin = coefBegin_.ptr();
    params_.typeSteps = typeSteps_.ptr();
    KernelShape interpreted = shape_;
    interpreted.interpreted = true;
    auto mod = compileForDevice(*device_, generateKernelSource(interpreted), kSourceName, nv);
    if (!mod)
        return mod.error();
    const bool ptx = !mod->cubin;
    shape_.interpreted = true;
    if (Status st = take(std::move(*mod)); !st)
        return st;
    // The compiled module as the interpreted one loaded: SASS, or PTX where the driver took only
    // that.
    if (background)
        compiling_ = std::async(std::launch::async, [compiled, nv, ptx]() -> Result<CompiledImage> {
            if (!ptx)
                return compileForArch(compiled, kSourceName, nv);
            auto p = compileToPtx(compiled, kSourceName, nv);
            if (!p)
                return p.error();
            return CompiledImage{std::move(p->ptx), false, p->fromCache, std::move(p->log)};
        });
    return Ok{};
}

Status CudaModel::adoptCompiledTypes(bool wait) {
    if (!compiling_.valid())
        return Ok{};
    if (!wait && compiling_.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
        return Ok{};
    Result<CompiledImage> image = compiling_.get();
    if (!image)
        return image.error();
    auto mod = device_->loadModule(image->image);
    if (!mod)
        return mod.error();
    compiledModule_ = std::move(*mod);
    if (Status st = lookUpKernels(compiledModule_, true); !st)
        return st;
    shape_.interpreted = false;
    return planLevelLaunches();
}

} // namespace zbddc::cuda
