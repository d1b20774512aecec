#include "circuit_handle.h"

#include "compiler/frontends/circuits/circuit_load.h"
#include "compiler/frontends/circuits/circuit_lower.h"
#include "ir/circuit_stats.h"

namespace zbddc::python {

Result<std::unique_ptr<CircuitHandle>> CircuitHandle::open(const CircuitRequest &request) {
    auto device = parseDeviceKind(request.device);
    if (!device ||
        (*device != DeviceKind::Auto && *device != DeviceKind::Cpu && *device != DeviceKind::Cuda))
        return error("unknown device '" + request.device + "' (auto, cpu or cuda)");
    if (request.semiring != "probability" && request.semiring != "log")
        return error("unknown semiring '" + request.semiring + "' (probability or log)");
    if (request.gpu < 0)
        return error("gpu " + std::to_string(request.gpu) + ": an ordinal is 0 or more");
    if (!isLogicCircuitFile(request.path))
        return error(request.path + ": a circuit is an .nnf (d-DNNF) or an .sdd (with its .vtree)");
    auto circuit = loadLogicCircuit(request.path, {}, 0, request.vtree);
    if (!circuit)
        return circuit.error();
    auto handle = std::make_unique<CircuitHandle>();
    handle->path_ = request.path;
    handle->numVars_ = literalVariableCount(*circuit);
    handle->ops_ = circuitStats(*circuit).ops;
    handle->numeric_ = request.semiring == "log" ? Numeric::Log : Numeric::Float64;
    handle->gpu_ = request.gpu;
    handle->shared_.assign(circuit->numInputs(), 1.0);
    for (uint32_t i = 0; i < 2 * handle->numVars_; ++i)
        handle->varying_.push_back(weightInput(handle->numVars_, 1, false) + i);
    DeviceOptions options;
    options.device = *device;
    options.gpu = request.gpu;
    // Every level on the GPU, at one case too, so that device arrays always have their pass
    // there (runtime/model.h: a model with host phases has no passOnDevice).
    options.hostLevelOps = 0;
    handle->model_.emplace(Model::fromCircuit(std::move(*circuit), options));
    return handle;
}

Result<CircuitHandle::Pass> CircuitHandle::forward(std::span<const double> weights, size_t count,
                                                   bool gradient) {
    std::lock_guard lock(busy_);
    Pass out;
    if (count == 0)
        return out;
    const InputBatch batch{shared_, varying_, {weights.begin(), weights.end()}, count};
    if (!gradient) {
        auto values = model_->evaluate(Semiring::SumProduct, numeric_, batch);
        if (!values)
            return values.error();
        out.values = std::move(*values);
        return out;
    }
    auto pass = model_->forwardBackward(Semiring::SumProduct, numeric_, batch, 0);
    if (!pass)
        return pass.error();
    out.values = std::move(pass->outputs);
    out.adjoints = std::move(pass->adjoints);
    return out;
}

Status CircuitHandle::forwardOnDevice(uint64_t weights, size_t count, uint64_t values,
                                      uint64_t adjoints) {
    std::lock_guard lock(busy_);
    if (count == 0)
        return Ok{};
    const DeviceInputBatch batch{shared_, varying_, weights, count, values, adjoints};
    const std::optional<size_t> adjointsOf =
        adjoints ? std::optional<size_t>(0) : std::optional<size_t>();
    std::optional<Status> ran =
        model_->passOnDevice(Semiring::SumProduct, numeric_, batch, adjointsOf);
    if (!ran)
        return error(path_ + ": this circuit runs on " + model_->describe(numeric_) +
                     ", which has no pass over GPU memory");
    return std::move(*ran);
}

} // namespace zbddc::python
