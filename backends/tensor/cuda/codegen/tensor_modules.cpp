#include "backends/tensor/cuda/codegen/tensor_modules.h"
#include "backends/tensor/cuda/codegen/generic_tensor_kernels.h"
#include "backends/tensor/cuda/codegen/tensor_module_sources.h"
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

// What this process keeps by key, the oldest dropped beyond `limit`; never destroyed (as the
// devices are not: modules outlive static teardown).
template <class Key, class Value> class RecentlyKept {
  public:
    explicit RecentlyKept(size_t limit) : limit_(limit) {}
    std::optional<Value> find(const Key &key) {
        std::lock_guard lock(mutex_);
        const auto it = byKey_.find(key);
        return it == byKey_.end() ? std::nullopt : std::optional<Value>(it->second);
    }
    void keep(const Key &key, const Value &value) {
        std::lock_guard lock(mutex_);
        if (!byKey_.emplace(key, value).second)
            return;
        order_.push_back(key);
        if (order_.size() > limit_) {
            byKey_.erase(order_.front());
            order_.pop_front();
        }
    }

  private:
    std::mutex mutex_;
    std::map<Key, Value> byKey_;
    std::deque<Key> order_;
    size_t limit_;
};

// Modules loaded, by device and source (hash and length).
using ModuleKey = std::tuple<int, size_t, size_t>;
RecentlyKept<ModuleKey, std::shared_ptr<const Module>> &loadedModules() {
    static auto *m = new RecentlyKept<ModuleKey, std::shared_ptr<const Module>>(256);
    return *m;
}

// Programs' modules compiled, by device and tensorSourcesKey (their modules stay in
// loadedModules() when a program is dropped).
using ProgramKey = std::pair<int, std::vector<uint64_t>>;
RecentlyKept<ProgramKey, TensorModules> &compiledPrograms() {
    static auto *c = new RecentlyKept<ProgramKey, TensorModules>(32);
    return *c;
}
} // namespace

Result<std::vector<TensorModules>> TensorModules::compile(std::span<Device *const> devices,
                                                          const TensorProgram &program,
                                                          const TensorKernelOptions &options) {
    const std::vector<uint64_t> key = tensorSourcesKey(program, options);
    std::optional<TensorModuleSources> sources; // generated once, where a device lacks them
    std::vector<std::future<Result<TensorModules>>> loading;
    for (Device *d : devices) {
        if (auto known = compiledPrograms().find({d->info().ordinal, key})) {
            known->loadedBefore_ = true;
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
        out.rowGroups_.push_back(rowGroupOf(program, o, options));
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
        bool loadedBefore = false;
    };
    // Modules this process loaded before are looked up here, not on a thread started only to
    // find one: a warm one-shot solve is short.
    std::vector<std::future<Result<Loaded>>> loaded;
    for (const std::string &source : sources.modules) {
        const auto key =
            std::make_tuple(device.info().ordinal, std::hash<std::string>{}(source), source.size());
        if (auto kept = loadedModules().find(key)) {
            std::promise<Result<Loaded>> found;
            found.set_value(Loaded{std::move(*kept), true});
            loaded.push_back(found.get_future());
            continue;
        }
        loaded.push_back(std::async(std::launch::async, [&, key]() -> Result<Loaded> {
            auto compiled = compileForDevice(device, source, "zbddc_tensor_program.cu");
            if (!compiled)
                return compiled.error();
            auto shared = std::make_shared<const Module>(std::move(compiled->module));
            loadedModules().keep(key, shared);
            return Loaded{std::move(shared), false};
        }));
    }
    ProgressLine line("compiling GPU kernels (" + std::to_string(sources.kernels) + " for " +
                      std::to_string(ops) + " ops) in groups");
    for (size_t g = 0; g < loaded.size(); ++g) {
        auto l = loaded[g].get();
        if (!l)
            return l.error();
        line.update(g + 1, loaded.size());
        out.loadedBefore_ = out.loadedBefore_ && l->loadedBefore;
        out.modules_.push_back(std::move(l->module));
    }
    out.functions_.resize(sources.kernels);
    out.fusedFunctions_.assign(sources.kernels, nullptr);
    for (uint32_t o = 0; o < ops; ++o) {
        const uint32_t k = out.kernelOf_[o];
        if (out.functions_[k])
            continue;
        const Module &m = *out.modules_[out.moduleOf_[k]];
        auto f = m.function(tensorModuleKernelName(k));
        if (!f)
            return f.error();
        out.functions_[k] = *f;
        if (out.shapeOf(o).empty() || !options.fusedEntries)
            continue;
        auto fused = m.function(tensorModuleKernelName(k) + kFusedKernelSuffix);
        if (!fused)
            return fused.error();
        out.fusedFunctions_[k] = *fused;
    }
    return out;
}

Result<FunctionHandle> TensorModules::fusedFunction(uint32_t op) const {
    if (FunctionHandle f = fusedFunctions_[kernelOf_[op]])
        return f;
    return error("internal error: op " + std::to_string(op) + " has no fused kernel");
}

Result<FunctionHandle> TensorModules::function(uint32_t op) const {
    return functions_[kernelOf_[op]];
}

} // namespace zbddc::cuda
