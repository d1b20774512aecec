#include "backends/tensor/cuda/tensor_modules.h"
#include "support/progress.h"

#include "backends/cuda/device_module.h"
#include "backends/cuda/nvrtc.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

namespace zbddc::cuda {

namespace {
// A distinct kernel's name in its module.
std::string kernelName(uint32_t kernel) {
    return "zb_k" + std::to_string(kernel);
}

// Kernels per module at least: below this a compile is short and one module keeps one cache entry.
constexpr size_t kKernelsPerGroup = 64;

// Modules loaded in this process, by device and source (hash and length), the oldest dropped
// beyond kKeptModules: a module is a few hundred KiB of device code.
constexpr size_t kKeptModules = 256;
struct LoadedModules {
    std::mutex mutex;
    std::map<std::tuple<int, size_t, size_t>, std::shared_ptr<const Module>> byKey;
    std::deque<std::tuple<int, size_t, size_t>> order;

    std::shared_ptr<const Module> find(const std::tuple<int, size_t, size_t> &key) {
        std::lock_guard lock(mutex);
        const auto it = byKey.find(key);
        return it == byKey.end() ? nullptr : it->second;
    }
    void keep(const std::tuple<int, size_t, size_t> &key, std::shared_ptr<const Module> m) {
        std::lock_guard lock(mutex);
        if (!byKey.emplace(key, std::move(m)).second)
            return;
        order.push_back(key);
        if (order.size() > kKeptModules) {
            byKey.erase(order.front());
            order.pop_front();
        }
    }
};
LoadedModules &loadedModules() {
    static LoadedModules *m = new LoadedModules; // never destroyed: modules outlive static teardown
    return *m;
}
} // namespace

Result<TensorModules> TensorModules::compile(Device &device, const TensorProgram &program,
                                             const TensorKernelOptions &options) {
    const size_t ops = program.ops.size();
    TensorModules out;
    TensorKernelSet set = distinctTensorKernels(program, options);
    out.kernelOf_ = std::move(set.kernelOf);
    const std::vector<std::string> &kernels = set.texts;
    const size_t count = kernels.size();
    const size_t threads = std::max(1u, std::thread::hardware_concurrency());
    const size_t groups = std::clamp<size_t>(count / kKernelsPerGroup, 1, threads);
    out.moduleOf_.resize(count);
    std::vector<std::vector<uint32_t>> members(groups);
    for (uint32_t k = 0; k < count; ++k) { // first use order: a level's kernels are near
        out.moduleOf_[k] = static_cast<uint32_t>(k * groups / std::max<size_t>(count, 1));
        members[out.moduleOf_[k]].push_back(k);
    }
    const std::string prelude = tensorKernelPrelude(program, options);
    auto sourceOf = [&](const std::vector<uint32_t> &group) {
        std::string source = prelude;
        for (uint32_t k : group) {
            std::string text = kernels[k];
            text.replace(text.find(kTensorKernelPlaceholder), std::strlen(kTensorKernelPlaceholder),
                         kernelName(k));
            source += text;
        }
        return source;
    };
    NvrtcOptions nvrtc;
    nvrtc.arch = device.info().arch();
    // Each thread compiles its group and loads it: loading PTX runs the driver's own compiler
    // (ptxas), as slow as NVRTC, so it must not be serial either.
    struct Loaded {
        std::shared_ptr<const Module> module;
        bool fromCache = false, loadedBefore = false;
    };
    std::vector<std::future<Result<Loaded>>> loaded;
    for (const std::vector<uint32_t> &group : members)
        loaded.push_back(std::async(std::launch::async, [&, group]() -> Result<Loaded> {
            const std::string source = sourceOf(group);
            const auto key = std::make_tuple(device.info().ordinal,
                                             std::hash<std::string>{}(source), source.size());
            if (auto kept = loadedModules().find(key))
                return Loaded{std::move(kept), true, true};
            auto ptx = compileToPtx(source, "zbddc_tensor_program.cu", nvrtc);
            if (!ptx)
                return ptx.error();
            auto module = device.loadModule(ptx->ptx);
            if (!module)
                return module.error();
            auto shared = std::make_shared<const Module>(std::move(*module));
            loadedModules().keep(key, shared);
            return Loaded{std::move(shared), ptx->fromCache, false};
        }));
    ProgressLine line("compiling GPU kernels (" + std::to_string(count) + " for " +
                      std::to_string(ops) + " ops) in groups");
    for (size_t g = 0; g < loaded.size(); ++g) {
        auto l = loaded[g].get();
        if (!l)
            return l.error();
        line.update(g + 1, loaded.size());
        out.fromCache_ = out.fromCache_ && l->fromCache;
        out.loadedBefore_ = out.loadedBefore_ && l->loadedBefore;
        out.modules_.push_back(std::move(l->module));
    }
    return out;
}

Result<FunctionHandle> TensorModules::function(uint32_t op) const {
    const uint32_t k = kernelOf_[op];
    return modules_[moduleOf_[k]]->function(kernelName(k));
}

} // namespace zbddc::cuda
