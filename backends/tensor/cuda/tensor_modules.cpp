#include "backends/tensor/cuda/tensor_modules.h"
#include "backends/tensor/cuda/generic_tensor_kernels.h"
#include "backends/tensor/cuda/tensor_module_sources.h"
#include "support/progress.h"

#include "backends/cuda/device_module.h"
#include "backends/cuda/nvrtc.h"
#include "support/threads.h"

#include <algorithm>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

namespace zbddc::cuda {

namespace {

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

// Programs' modules this process compiled, by device and tensorSourcesKey, the oldest dropped
// beyond kKeptPrograms (their modules stay in LoadedModules).
constexpr size_t kKeptPrograms = 32;
struct CompiledPrograms {
    std::mutex mutex;
    std::deque<std::pair<std::pair<int, std::vector<uint64_t>>, TensorModules>> recent;

    std::optional<TensorModules> find(const std::pair<int, std::vector<uint64_t>> &key) {
        std::lock_guard lock(mutex);
        for (const auto &[k, modules] : recent)
            if (k == key)
                return modules;
        return std::nullopt;
    }
    void keep(std::pair<int, std::vector<uint64_t>> key, const TensorModules &modules) {
        std::lock_guard lock(mutex);
        recent.emplace_back(std::move(key), modules);
        if (recent.size() > kKeptPrograms)
            recent.pop_front();
    }
};
CompiledPrograms &compiledPrograms() {
    static CompiledPrograms *c = new CompiledPrograms; // never destroyed, as loadedModules()
    return *c;
}
} // namespace

Result<TensorModules> TensorModules::compile(Device &device, const TensorProgram &program,
                                             const TensorKernelOptions &options) {
    Device *const one[] = {&device};
    auto modules = compile(one, program, options);
    if (!modules)
        return modules.error();
    return std::move(modules->front());
}

Result<std::vector<TensorModules>> TensorModules::compile(std::span<Device *const> devices,
                                                          const TensorProgram &program,
                                                          const TensorKernelOptions &options) {
    const std::vector<uint64_t> key = tensorSourcesKey(program, options);
    std::optional<TensorModuleSources> sources; // generated once, where a device lacks them
    std::vector<std::future<Result<TensorModules>>> loading;
    for (Device *d : devices) {
        if (auto known = compiledPrograms().find({d->info().ordinal, key})) {
            known->fromCache_ = known->loadedBefore_ = true;
            std::promise<Result<TensorModules>> found;
            found.set_value(std::move(*known));
            loading.push_back(found.get_future());
            continue;
        }
        if (!sources)
            sources = tensorModuleSources(program, options, threadsOrCores(0));
        loading.push_back(std::async(std::launch::async, [&, d]() -> Result<TensorModules> {
            auto modules = load(*d, program, options, *sources);
            if (modules)
                compiledPrograms().keep({d->info().ordinal, key}, *modules);
            return modules;
        }));
    }
    std::vector<TensorModules> out;
    for (auto &l : loading) {
        auto modules = l.get();
        if (!modules)
            return modules.error();
        out.push_back(std::move(*modules));
    }
    return out;
}

Result<TensorModules> TensorModules::load(Device &device, const TensorProgram &program,
                                          const TensorKernelOptions &options,
                                          const TensorModuleSources &sources) {
    const size_t ops = program.ops.size();
    TensorModules out;
    out.kernelOf_ = sources.kernelOf;
    out.moduleOf_ = sources.moduleOf;
    out.shapeBegin_.push_back(0);
    for (uint32_t o = 0; o < ops; ++o) {
        if (usesGenericKernel(program, o, options)) {
            const std::vector<uint32_t> words = genericKernelShape(program, o);
            out.shapeWords_.insert(out.shapeWords_.end(), words.begin(), words.end());
        }
        out.shapeBegin_.push_back(out.shapeWords_.size());
    }
    // Each thread compiles its module and loads it: loading a PTX (where NVRTC does not know the
    // device) runs the driver's own compiler, as slow as NVRTC, so it must not be serial either.
    struct Loaded {
        std::shared_ptr<const Module> module;
        bool fromCache = false, loadedBefore = false;
    };
    // Modules this process loaded before are looked up here, not on a thread started only to
    // find one: a warm one-shot solve is short (SPOT5 404's 5.2 ms on the H200, 3.1 ms of them
    // generating its sources and finding its modules).
    std::vector<std::future<Result<Loaded>>> loaded;
    for (const std::string &source : sources.modules) {
        const auto key =
            std::make_tuple(device.info().ordinal, std::hash<std::string>{}(source), source.size());
        if (auto kept = loadedModules().find(key)) {
            std::promise<Result<Loaded>> found;
            found.set_value(Loaded{std::move(kept), true, true});
            loaded.push_back(found.get_future());
            continue;
        }
        loaded.push_back(std::async(std::launch::async, [&, key]() -> Result<Loaded> {
            auto compiled = compileForDevice(device, source, "zbddc_tensor_program.cu");
            if (!compiled)
                return compiled.error();
            auto shared = std::make_shared<const Module>(std::move(compiled->module));
            loadedModules().keep(key, shared);
            return Loaded{std::move(shared), compiled->fromCache, false};
        }));
    }
    ProgressLine line("compiling GPU kernels (" + std::to_string(sources.kernels) + " for " +
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
    return modules_[moduleOf_[k]]->function(tensorModuleKernelName(k));
}

} // namespace zbddc::cuda
