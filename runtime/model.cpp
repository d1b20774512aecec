#include "runtime/model.h"

#include "runtime/engine.h"
#include "runtime/shared_model.h"

#include <map>

namespace zbddc {

const char *deviceName(Device d) {
    switch (d) {
    case Device::Auto: return "auto";
    case Device::Cpu: return "cpu";
    case Device::Cuda: return "cuda";
    case Device::Reference: return "reference";
    }
    return "?";
}

std::optional<Device> parseDevice(std::string_view name) {
    for (Device d : {Device::Auto, Device::Cpu, Device::Cuda, Device::Reference})
        if (name == deviceName(d))
            return d;
    return std::nullopt;
}

struct Model::Impl {
    Circuit circuit;
    size_t numOutputs = 0;
    Device device = Device::Cpu;
    int cpuOptLevel = 0;
    bool cpuDataDriven = false;
    std::string note;
    std::string cudaName;
    // A model.so: its one engine, for its one semiring and numeric mode.
    std::optional<ModelMetadata> shared;
    std::unique_ptr<Engine> sharedEngine;
    std::map<std::pair<Semiring, Numeric>, std::unique_ptr<Engine>> engines;

    Result<Engine *> engine(Semiring s, Numeric n) {
        if (shared) {
            if (s != shared->semiring || n != shared->numeric)
                return error("this model.so was compiled for " +
                             std::string(semiringName(shared->semiring)) + " in " +
                             numericName(shared->numeric) + "; asked for " +
                             std::string(semiringName(s)) + " in " + numericName(n));
            return sharedEngine.get();
        }
        auto &slot = engines[{s, n}];
        if (!slot) {
            auto made =
                device == Device::Cuda  ? cudaEngine(circuit, s, n)
                : device == Device::Cpu ? cpuJitEngine(circuit, s, n, cpuOptLevel, cpuDataDriven)
                                        : referenceEngine(circuit, s, n);
            if (!made)
                return made.error();
            slot = std::move(*made);
        }
        return slot.get();
    }
};

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::Model(Model &&) noexcept = default;
Model &Model::operator=(Model &&) noexcept = default;
Model::~Model() = default;

Model Model::fromCircuit(Circuit circuit, const DeviceOptions &o) {
    auto impl = std::make_unique<Impl>();
    impl->circuit = std::move(circuit);
    impl->numOutputs = impl->circuit.numOutputs();
    impl->cpuOptLevel = o.cpuOptLevel;
    impl->cpuDataDriven = o.cpuDataDriven;
    impl->device = o.device;
    if (o.device == Device::Auto || o.device == Device::Cuda) {
        if (Status usable = cudaUsable(); usable) {
            impl->device = Device::Cuda;
            impl->cudaName = cudaDeviceName();
        } else {
            impl->device = Device::Cpu;
            impl->note = "cuda unavailable: " + usable.error().message;
        }
    }
    return Model(std::move(impl));
}

Result<Model> Model::fromSharedObject(const std::string &path) {
    auto so = loadSharedModel(path);
    if (!so)
        return so.error();
    auto impl = std::make_unique<Impl>();
    impl->circuit = so->metadata.interface;
    impl->numOutputs = so->metadata.numOutputs;
    impl->shared = std::move(so->metadata);
    impl->sharedEngine = std::move(so->engine);
    return Model(std::move(impl));
}

const Circuit &Model::circuit() const { return impl_->circuit; }
bool Model::hasNodes() const { return !impl_->shared; }
size_t Model::numInputs() const { return impl_->circuit.numInputs(); }
size_t Model::numOutputs() const { return impl_->numOutputs; }
Device Model::device() const { return impl_->device; }
const std::string &Model::fallbackNote() const { return impl_->note; }

std::optional<Semiring> Model::fixedSemiring() const {
    return impl_->shared ? std::optional(impl_->shared->semiring) : std::nullopt;
}

std::optional<Numeric> Model::fixedNumeric() const {
    return impl_->shared ? std::optional(impl_->shared->numeric) : std::nullopt;
}

std::string Model::describe(Numeric n, std::string_view extra) const {
    const std::string numeric = numericName(n);
    std::string d;
    if (impl_->shared)
        d = "cpu (model.so, " + numeric;
    else if (impl_->device == Device::Cuda)
        d = "cuda " + impl_->cudaName + " (" + numeric;
    else if (impl_->device == Device::Cpu)
        d = (impl_->cpuDataDriven ? "cpu (data-driven loop, " : "cpu (LLVM JIT, ") + numeric;
    else
        d = "cpu (reference evaluator, " + numeric;
    if (!impl_->note.empty())
        d += "; " + impl_->note;
    if (!extra.empty())
        d += "; " + std::string(extra);
    return d + ")";
}

Result<std::vector<double>> Model::evaluate(Semiring s, Numeric n, std::span<const double> x,
                                            size_t batch) {
    auto e = impl_->engine(s, n);
    if (!e)
        return e.error();
    if (x.size() != batch * numInputs())
        return error("expected " + std::to_string(batch * numInputs()) + " input values, got " +
                     std::to_string(x.size()));
    return (*e)->evaluate(x, batch);
}

Result<std::vector<double>> Model::adjoints(Semiring s, Numeric n, std::span<const double> x,
                                            size_t batch, size_t output) {
    auto e = impl_->engine(s, n);
    if (!e)
        return e.error();
    if (x.size() != batch * numInputs())
        return error("expected " + std::to_string(batch * numInputs()) + " input values, got " +
                     std::to_string(x.size()));
    if (output >= numOutputs())
        return error("output " + std::to_string(output) + " out of range");
    return (*e)->adjoints(x, batch, output);
}

std::optional<Result<std::vector<uint32_t>>> Model::traceback(Semiring s, Numeric n,
                                                              std::span<const double> x,
                                                              size_t output) {
    auto e = impl_->engine(s, n);
    if (!e)
        return Result<std::vector<uint32_t>>(e.error());
    return (*e)->traceback(x, output);
}

std::future<Result<std::vector<double>>> Model::evaluateAsync(Semiring s, Numeric n,
                                                              std::vector<double> x, size_t batch) {
    // The Impl, not `this`: a Model may be moved while the call runs.
    Impl *impl = impl_.get();
    return std::async(std::launch::async,
                      [impl, s, n, x = std::move(x), batch]() -> Result<std::vector<double>> {
                          auto e = impl->engine(s, n);
                          if (!e)
                              return e.error();
                          if (x.size() != batch * impl->circuit.numInputs())
                              return error("expected " +
                                           std::to_string(batch * impl->circuit.numInputs()) +
                                           " input values, got " + std::to_string(x.size()));
                          return (*e)->evaluate(x, batch);
                      });
}

} // namespace zbddc
