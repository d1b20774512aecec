#include "runtime/model.h"

#include "runtime/engine.h"
#include "runtime/engine_host_phases.h"
#include "runtime/shared_objects/shared_model.h"
#include "support/strings.h"

#include <map>
#include <tuple>

namespace zbddc {

struct Model::Impl {
    Circuit circuit; // empty for a model.so: its engine is already compiled
    ModelInterface interface;
    DeviceKind device = DeviceKind::Cpu;
    int cpuOptLevel = 0;
    DeviceOptions::CpuCode cpuCode = DeviceOptions::CpuCode::Auto;
    std::optional<bool> cpuLoop; // the CPU code, settled by the first CPU engine
    int gpu = 0;
    uint32_t cudaMaxLanes = kMaxCudaLanes;
    std::optional<uint32_t> hostLevelOps; // DeviceOptions::hostLevelOps
    std::string note;
    std::string choice;     // DeviceOptions::choice
    // Per numeric mode, its last call's engine's note (Engine::note), or "": a batch's float64
    // pass and its log-space pass for the cases float64 lost are described apart.
    std::map<Numeric, std::string> engineNotes;
    std::string cudaName;
    // A model.so: its one engine, for interface.semiring in this numeric mode.
    std::optional<Numeric> sharedNumeric;
    std::unique_ptr<Engine> sharedEngine;
    // By semiring, numeric mode and CUDA lanes (1 elsewhere).
    std::map<std::tuple<Semiring, Numeric, uint32_t>, std::unique_ptr<Engine>> engines;
    Float32AnalysisCache float32Analyses; // float32 and log32 batches' error-bound analysis

    // `batch`: the cases of the call that needs it (Auto settles the CPU code by the first).
    Result<Engine *> engine(Semiring s, Numeric n, uint32_t lanes, size_t batch) {
        if (sharedNumeric) {
            if (s != interface.semiring || n != *sharedNumeric)
                return error("this model.so was compiled for " +
                             std::string(semiringName(interface.semiring)) + " in " +
                             numericName(*sharedNumeric) + "; asked for " +
                             std::string(semiringName(s)) + " in " + numericName(n));
            return sharedEngine.get();
        }
        auto &slot = engines[{s, n, lanes}];
        if (!slot) {
            if (device == DeviceKind::Cpu && !cpuLoop) {
                using C = DeviceOptions::CpuCode;
                cpuLoop = cpuCode == C::Loop ||
                          (cpuCode == C::Auto && cpuRunsLoop(circuit.numNodes(), batch));
            }
            auto made = device == DeviceKind::Cuda ? gpuEngine(s, n, lanes)
                        : device == DeviceKind::Cpu
                            ? cpuJitEngine(circuit, s, n, cpuOptLevel, *cpuLoop)
                            : referenceEngine(circuit, s, n);
            if (!made)
                return made.error();
            slot = std::move(*made);
        }
        return slot.get();
    }

    // The GPU's engine, with its host phases where the circuit has any: PR and MAR
    // (sum-product, float64). MPE keeps every level on the device, where one walk per case
    // traces the whole circuit back (cut into parts, it would be decoded from adjoints).
    Result<std::unique_ptr<Engine>> gpuEngine(Semiring s, Numeric n, uint32_t lanes) {
        const uint32_t limit = hostLevelOps.value_or(lanes == 1 ? kOneCaseHostLevelOps : 0);
        if (limit == 0 || n != Numeric::Float64 || s != Semiring::SumProduct)
            return cudaEngine(circuit, s, n, lanes, gpu);
        HostPhaseCircuits parts = splitHostPhases(circuit, limit);
        if (!parts.hasHostLevels())
            return cudaEngine(circuit, s, n, lanes, gpu);
        return hostPhaseEngine(
            std::move(parts), s, n,
            [&](const Circuit &part) { return cpuJitEngine(part, s, n, cpuOptLevel); },
            [&](const Circuit &part) { return cudaEngine(part, s, n, lanes, gpu); });
    }

    // On the GPU a batch runs in throughput mode, many vectors per launch (latency mode ran one
    // case per launch). Settled once per batch size: cudaLanesFor asks the driver for the free
    // memory, which a warm call need not pay for (its engine is compiled already).
    std::map<size_t, uint32_t> lanesByBatch;
    uint32_t lanesFor(size_t batch) {
        if (device != DeviceKind::Cuda || sharedNumeric || batch <= 1)
            return 1;
        auto [at, added] = lanesByBatch.try_emplace(batch, 1);
        if (added)
            at->second = cudaLanesFor(circuit, batch, gpu, cudaMaxLanes);
        return at->second;
    }

    // An engine already compiled for (s, n) with at least `lanes` lanes, or null: a smaller
    // batch runs on it with lanes idle rather than compiling one more (MPE's tie rounds ask for
    // ever fewer cases; an NVRTC compile costs far more than a launch of idle lanes).
    Engine *widerEngine(Semiring s, Numeric n, uint32_t lanes) const {
        for (auto it = engines.lower_bound({s, n, lanes}); it != engines.end(); ++it) {
            if (std::get<0>(it->first) != s || std::get<1>(it->first) != n)
                break;
            if (it->second)
                return it->second.get();
        }
        return nullptr;
    }

    // The engine for a backward pass from `output` (one of `outputs`).
    Result<Engine *> engineForOutput(Semiring s, Numeric n, std::span<const double> x, size_t batch,
                                     size_t output, size_t outputs) {
        if (output >= outputs)
            return error("output " + std::to_string(output) + " out of range");
        return engineFor(s, n, x, batch);
    }

    // The engine for a batch of `batch` vectors.
    Result<Engine *> engineForBatch(Semiring s, Numeric n, size_t batch) {
        const uint32_t lanes = lanesFor(batch);
        Engine *wider = lanes > 1 ? widerEngine(s, n, lanes) : nullptr;
        Result<Engine *> e = wider ? Result<Engine *>(wider) : engine(s, n, lanes, batch);
        engineNotes[n] = e ? (*e)->note() : "";
        return e;
    }

    // The engine, once `x` is known to hold `batch` input vectors.
    Result<Engine *> engineFor(Semiring s, Numeric n, std::span<const double> x, size_t batch) {
        Result<Engine *> e = engineForBatch(s, n, batch);
        if (!e)
            return e.error();
        if (x.size() != batch * interface.numInputs())
            return error("expected " + std::to_string(batch * interface.numInputs()) +
                         " input values, got " + std::to_string(x.size()));
        return e;
    }
};

bool cpuRunsLoop(size_t circuitOps, size_t batch) {
    constexpr size_t kJitMaxOps = 10'000, kJitMinBatch = 10'000;
    return circuitOps >= kJitMaxOps || batch < kJitMinBatch;
}

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::Model(Model &&) noexcept = default;
Model &Model::operator=(Model &&) noexcept = default;
Model::~Model() = default;

Model Model::fromCircuit(Circuit circuit, const DeviceOptions &o) {
    auto impl = std::make_unique<Impl>();
    impl->circuit = std::move(circuit);
    impl->interface = interfaceOf(impl->circuit);
    impl->cpuOptLevel = o.cpuOptLevel;
    impl->cpuCode = o.cpuCode;
    impl->device = o.device;
    impl->gpu = o.gpu;
    if (o.cudaMaxLanes > 0)
        impl->cudaMaxLanes = o.cudaMaxLanes;
    impl->hostLevelOps = o.hostLevelOps;
    impl->choice = o.choice;
    if (o.device == DeviceKind::Auto || o.device == DeviceKind::Cuda ||
        o.device == DeviceKind::Split) {
        if (Status usable = gpuUsable(); usable) {
            impl->device = DeviceKind::Cuda;
            impl->cudaName = cudaDeviceName(o.gpu);
        } else {
            impl->device = DeviceKind::Cpu;
            impl->note = "cuda unavailable: " + usable.error().message;
        }
    }
    return Model(std::move(impl));
}

Result<Model> Model::onGpu(int ordinal) const {
    if (impl_->device != DeviceKind::Cuda || impl_->sharedNumeric)
        return error("only a circuit on the GPU runs on another GPU");
    DeviceOptions o;
    o.device = DeviceKind::Cuda;
    o.gpu = ordinal;
    o.cudaMaxLanes = impl_->cudaMaxLanes;
    o.hostLevelOps = impl_->hostLevelOps;
    return fromCircuit(impl_->circuit, o);
}

Result<Model> Model::fromSharedObject(const std::string &path) {
    auto so = loadSharedModel(path);
    if (!so)
        return so.error();
    auto impl = std::make_unique<Impl>();
    impl->interface = std::move(so->metadata.interface);
    impl->sharedNumeric = so->metadata.numeric;
    impl->sharedEngine = std::move(so->engine);
    return Model(std::move(impl));
}

const ModelInterface &Model::interface() const { return impl_->interface; }
const Circuit *Model::circuit() const { return impl_->sharedNumeric ? nullptr : &impl_->circuit; }

const Float32Analysis &Model::float32Analysis(Numeric numeric, const InputBatch &batch) {
    return impl_->float32Analyses.analysis(impl_->circuit, numeric,
                                           inputRanges(impl_->circuit, batch));
}

size_t Model::numInputs() const { return impl_->interface.numInputs(); }
size_t Model::numOutputs() const { return impl_->interface.numOutputs(); }
DeviceKind Model::device() const { return impl_->device; }
const std::string &Model::fallbackNote() const { return impl_->note; }

std::optional<Semiring> Model::fixedSemiring() const {
    return impl_->sharedNumeric ? std::optional(impl_->interface.semiring) : std::nullopt;
}

std::optional<Numeric> Model::fixedNumeric() const {
    return impl_->sharedNumeric;
}

DeviceReport Model::report(Numeric n, std::string_view extra) const {
    DeviceReport r;
    r.arithmetic = n;
    const std::string numeric = numericName(n);
    if (impl_->sharedNumeric) {
        r.notes = "model.so, " + numeric;
    } else if (impl_->device == DeviceKind::Cuda) {
        r.kind = DeviceKind::Cuda;
        r.name = impl_->cudaName;
        r.ordinal = impl_->gpu;
        r.notes = numeric;
    } else if (impl_->device == DeviceKind::Cpu) {
        r.notes = (impl_->cpuLoop.value_or(impl_->cpuCode == DeviceOptions::CpuCode::Loop)
                       ? "data-driven loop, "
                       : "LLVM JIT, ") +
                  numeric;
    } else {
        r.kind = DeviceKind::Reference;
        r.notes = "reference evaluator, " + numeric;
    }
    if (!impl_->note.empty()) // the driver's reason is fallbackNote(), said once, not per case
        r.addNote("no usable GPU");
    r.addNote(impl_->choice);
    if (auto note = impl_->engineNotes.find(n); note != impl_->engineNotes.end())
        r.addNote(note->second);
    r.addNote(extra);
    return r;
}

std::string Model::describe(Numeric n, std::string_view extra) const {
    return report(n, extra).label();
}

Status Model::prepare(Semiring s, Numeric n, size_t batch) {
    auto e = impl_->engine(s, n, impl_->lanesFor(batch), batch);
    if (!e)
        return e.error();
    return Ok{};
}

Status Model::settle(Semiring s, Numeric n, size_t batch) {
    auto e = impl_->engine(s, n, impl_->lanesFor(batch), batch);
    if (!e)
        return e.error();
    return (*e)->settle();
}

Result<std::vector<double>> Model::evaluate(Semiring s, Numeric n, std::span<const double> x,
                                            size_t batch) {
    auto e = impl_->engineFor(s, n, x, batch);
    if (!e)
        return e.error();
    return (*e)->evaluate(x, batch);
}

Result<std::vector<double>> Model::adjoints(Semiring s, Numeric n, std::span<const double> x,
                                            size_t batch, size_t output) {
    auto e = impl_->engineForOutput(s, n, x, batch, output, numOutputs());
    if (!e)
        return e.error();
    return (*e)->adjoints(x, batch, output);
}

Result<PassValues> Model::forwardBackward(Semiring s, Numeric n, std::span<const double> x,
                                          size_t batch, size_t output) {
    auto e = impl_->engineForOutput(s, n, x, batch, output, numOutputs());
    if (!e)
        return e.error();
    return (*e)->forwardBackward(x, batch, output);
}

Result<PassValues> Model::varyingPass(Semiring s, Numeric n, const InputBatch &batch,
                                      size_t output, bool withOutputs) {
    if (output >= numOutputs())
        return error("output " + std::to_string(output) + " out of range");
    if (Status st = batch.check(numInputs()); !st)
        return st.error();
    auto e = impl_->engineForBatch(s, n, batch.count);
    if (!e)
        return e.error();
    return (*e)->varyingPass(batch, output, withOutputs);
}

Result<std::vector<double>> Model::evaluate(Semiring s, Numeric n, const InputBatch &batch) {
    if (Status st = batch.check(numInputs()); !st)
        return st.error();
    auto e = impl_->engineForBatch(s, n, batch.count);
    if (!e)
        return e.error();
    return (*e)->varyingEvaluate(batch);
}

Result<std::vector<double>> Model::adjoints(Semiring s, Numeric n, const InputBatch &batch,
                                            size_t output) {
    auto pass = varyingPass(s, n, batch, output, false);
    if (!pass)
        return pass.error();
    return std::move(pass->adjoints);
}

Result<PassValues> Model::forwardBackward(Semiring s, Numeric n, const InputBatch &batch,
                                          size_t output) {
    return varyingPass(s, n, batch, output, true);
}

std::optional<Result<std::vector<uint32_t>>> Model::traceback(Semiring s, Numeric n,
                                                              std::span<const double> x,
                                                              size_t output) {
    auto e = impl_->engine(s, n, 1, 1);
    if (!e)
        return Result<std::vector<uint32_t>>(e.error());
    return (*e)->traceback(x, output);
}

std::optional<Result<TracedTerms>> Model::traceback(Semiring s, Numeric n,
                                                   const InputBatch &batch, size_t output) {
    if (output >= numOutputs())
        return Result<TracedTerms>(error("output " + std::to_string(output) + " out of range"));
    if (Status st = batch.check(numInputs()); !st)
        return Result<TracedTerms>(st.error());
    auto e = impl_->engineForBatch(s, n, batch.count);
    if (!e)
        return Result<TracedTerms>(e.error());
    return (*e)->varyingTraceback(batch, output);
}

std::optional<Result<std::unique_ptr<EnqueuedPass>>>
Model::enqueue(Semiring s, Numeric n, std::span<const double> x, size_t batch,
               std::optional<size_t> adjointsOf, void *cudaStream,
               std::optional<size_t> tracebackOf) {
    using Enqueued = Result<std::unique_ptr<EnqueuedPass>>;
    if (impl_->device != DeviceKind::Cuda || impl_->sharedNumeric)
        return std::nullopt;
    auto e = impl_->engineFor(s, n, x, batch);
    if (!e)
        return Enqueued(e.error());
    for (std::optional<size_t> output : {adjointsOf, tracebackOf})
        if (output && *output >= numOutputs())
            return Enqueued(error("output " + std::to_string(*output) + " out of range"));
    return (*e)->enqueue(x, batch, adjointsOf, tracebackOf, cudaStream);
}

std::optional<Status> Model::passOnDevice(Semiring s, Numeric n, const DeviceInputBatch &batch,
                                          std::optional<size_t> adjointsOf, void *cudaStream) {
    if (impl_->device != DeviceKind::Cuda || impl_->sharedNumeric)
        return std::nullopt;
    if (adjointsOf && *adjointsOf >= numOutputs())
        return error("output " + std::to_string(*adjointsOf) + " out of range");
    if (Status st = batch.check(numInputs(), adjointsOf.has_value()); !st)
        return st;
    auto e = impl_->engineForBatch(s, n, batch.count);
    if (!e)
        return Status(e.error());
    return (*e)->passOnDevice(batch, adjointsOf, cudaStream);
}

std::future<Result<std::vector<double>>> Model::evaluateAsync(Semiring s, Numeric n,
                                                              std::vector<double> x, size_t batch) {
    // The Impl, not `this`: a Model may be moved while the call runs.
    Impl *impl = impl_.get();
    return std::async(std::launch::async,
                      [impl, s, n, x = std::move(x), batch]() -> Result<std::vector<double>> {
                          auto e = impl->engineFor(s, n, x, batch);
                          if (!e)
                              return e.error();
                          return (*e)->evaluate(x, batch);
                      });
}

} // namespace zbddc
