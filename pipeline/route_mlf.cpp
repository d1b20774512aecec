// The MLF route: a network's multi-linear function compiled into a ZBDD (compiler/mlf; Minato,
// Satoh, Sato 2007), or a .zdd read, lowered into a circuit (Minato et al. 2011 typeA/typeB), run
// by a Model on the LLVM JIT, the data-driven loop, the GPU or the reference evaluator.
#include "backends/cpu/dfs_order.h"
#include "backends/cpu/emit_c.h"
#include "backends/cpu/object_compile.h"
#include "backends/cpu/shared_object.h"
#include "compiler/frontends/zdd/zdd_format.h"
#include "compiler/mlf/mlf_compile.h"
#include "compiler/mlf/mlf_frontier.h"
#include "compiler/passes/pipeline.h"
#include "ir/model_interface.h"
#include "pipeline/load_model.h"
#include "pipeline/route.h"
#include "pipeline/route_choice.h"
#include "runtime/device_list.h"
#include "runtime/tensor/tensor_executor.h"
#include "support/progress.h"

#ifdef ZBDDC_HAVE_CUDA_BACKEND
#include "runtime/cuda_circuit.h"
#endif

#include <cmath>
#include <ostream>

namespace zbddc::pipeline {

namespace {

bool takesMlf(ModelKind kind) {
    return kind == ModelKind::Network || kind == ModelKind::Zdd || kind == ModelKind::Circuit;
}

// The MLF's ZBDD size as its frontier model estimates it (a short order search), times the work
// of a node per case and of compiling it (route_choice.cpp); nothing over the node limit.
std::optional<double> estimateMlf(RouteInput in, std::string &what) {
    if (!in.model.network)
        return std::nullopt;
    const BayesNet &net = *in.model.network;
    const std::vector<uint32_t> order =
        searchFrontierOrder(net, {fileTopologicalOrder(net)}, 2'000'000);
    const double nodes = std::exp(frontierLogCost(net, order));
    const uint64_t limit = in.options.reading.zbddNodeLimit;
    char text[160];
    if (nodes > static_cast<double>(limit)) {
        std::snprintf(text, sizeof text, "ZBDD is estimated at %.3g nodes, over the node limit (%llu)",
                      nodes, static_cast<unsigned long long>(limit));
        what = text;
        return std::nullopt;
    }
    std::snprintf(text, sizeof text, "%.3g ZBDD nodes", nodes);
    what = text;
    const RouteCosts costs = routeCosts(in.placement.onGpu);
    return nodes * (costs.mlfNodeCompileInEntries +
                    costs.mlfNodePerCaseInEntries * static_cast<double>(in.options.expectedCases));
}

class MlfRoute final : public Route {
  public:
    MlfRoute(std::optional<ZddModel> zdd, Model model, std::vector<Model> spread, DeviceKind asked)
        : zdd_(std::move(zdd)), model_(std::move(model)), spread_(std::move(spread)),
          asked_(asked) {}

    const std::vector<Variable> &variables() const override {
        return model_.interface().variables;
    }
    std::vector<Task> tasks() const override {
        return {Task::Eval, Task::Pr, Task::Mar, Task::Mpe};
    }
    std::vector<Result<TaskResult>> answer(Task task, std::span<const Evidence> cases,
                                           const TaskOptions &options) override {
        std::vector<Result<TaskResult>> results =
            spread_.empty() ? runTasks(model_, task, cases, options)
                            : runTasksOnDevices(spread_, task, cases, options);
        if (!model_.fallbackNote().empty())
            noteFallback(asked_, model_.device(), model_.fallbackNote() + "; ran on the CPU");
        return results;
    }
    Status save(const std::string &path, const SaveOptions &options) override {
        auto cpu = cpuOptions(options);
        if (!cpu)
            return cpu.error();
        SharedObjectOptions link;
        link.symbolPrefix = options.symbolPrefix;
        auto report = writeSharedObject(circuit(), *cpu, path, link);
        if (!report)
            return report.error();
        return Ok{};
    }
    std::vector<std::string> stages() const override {
        if (!zdd_) // a d-DNNF's or SDD's circuit has no ZBDD
            return {"circuit", "schedule", "c", "ll", "cu", "ptx"};
        return {"zbdd", "circuit", "schedule", "c", "ll", "cu", "ptx"};
    }
    Status emit(const std::string &stage, std::ostream &out, const SaveOptions &options) override {
        if (stage == "zbdd") {
            if (!zdd_)
                return error("a d-DNNF or SDD has no ZBDD to write");
            writeZdd(*zdd_, out);
            return Ok{};
        }
        if (stage == "circuit") {
            dump(circuit(), out);
            return Ok{};
        }
        if (stage == "schedule") {
            auto schedule = buildSchedule(circuit(), PipelineOptions{});
            if (!schedule)
                return schedule.error();
            dump(*schedule, out);
            return Ok{};
        }
        if (stage == "cu" || stage == "ptx")
            return emitCuda(stage == "ptx", out, options);
        auto cpu = cpuOptions(options);
        if (!cpu)
            return cpu.error();
        if (stage == "c")
            return emitC(circuit(), *cpu, out);
        auto ir = emitLlvmIr(circuit(), *cpu,
                             writeModelMetadata(circuit(), cpu->semiring.value_or(circuit().semiring),
                                                cpu->numeric));
        if (!ir)
            return ir.error();
        out << *ir;
        return Ok{};
    }

  private:
    const Circuit &circuit() const { return *model_.circuit(); }

    // A .so or --emit=c|ll: Minato et al. 2011 §3's DFS order, for any machine of the arch.
    Result<CpuOptions> cpuOptions(const SaveOptions &o) const {
        CpuOptions options;
        options.optLevel = o.optLevel;
        options.numeric = o.numeric == "log" ? Numeric::Log : Numeric::Float64;
        if (!o.semiring.empty())
            options.semiring = parseSemiring(o.semiring);
        const Semiring semiring = options.semiring.value_or(circuit().semiring);
        if (options.numeric == Numeric::Log && semiring != Semiring::SumProduct &&
            semiring != Semiring::MaxProduct)
            return error("log arithmetic needs a product semiring (sum-product or max-product)");
        options.order = dfsOrder(circuit()).order;
        options.hostCpu = false; // a .so may be copied to another machine
        return options;
    }

    Status emitCuda(bool ptx, std::ostream &out, const SaveOptions &o) const {
#ifdef ZBDDC_HAVE_CUDA_BACKEND
        cuda::CudaOptions options;
        if (!o.semiring.empty())
            options.semiring = parseSemiring(o.semiring);
        options.logSpace = o.numeric == "log";
        auto text = emitCircuitCuda(circuit(), options, ptx);
        if (!text)
            return text.error();
        out << *text;
        return Ok{};
#else
        (void)ptx, (void)out, (void)o;
        return error("CUDA source needs the CUDA backend, which this build lacks (NVRTC was not "
                     "found)");
#endif
    }

    std::optional<ZddModel> zdd_; // none for a d-DNNF's or SDD's circuit
    Model model_;
    std::vector<Model> spread_; // the same circuit on each GPU of --devices (several only)
    DeviceKind asked_;
};

Result<std::unique_ptr<Route>> compileMlf(RouteInput in) {
    ModelFile &m = in.model;
    std::optional<ZddModel> zdd;
    Circuit circuit;
    if (m.circuit) { // a .zdd's (with its ZBDD), a .nnf's or an .sdd's
        zdd = m.zdd;
        circuit = *m.circuit;
    } else {
        auto compiled = compileNetworkMlf(*m.network, m.path, in.options.reading);
        if (!compiled)
            return compiled.error();
        auto lowered = lowerVerified(*compiled, m.path);
        if (!lowered)
            return lowered.error();
        zdd = std::move(*compiled);
        circuit = std::move(*lowered);
    }
    const OpenOptions &o = in.options;
    DeviceOptions device;
    device.device = in.placement.device;
    device.choice = in.placement.why;
    device.cpuOptLevel = o.circuit.optLevel;
    if (o.target.gpus.size() == 1)
        device.gpu = o.target.gpus[0];
    // A process answers once: its one-case pass is a first call, where host phases cost more
    // than they save (bench/results/NOTEBOOK.md, "Host phases"); the API's later calls gain from them.
    device.hostLevelOps = o.circuit.hostLevelOps.value_or(0);
    using C = DeviceOptions::CpuCode;
    device.cpuCode = o.circuit.cpuCode == CircuitOptions::CpuCode::Loop ? C::Loop
                     : o.circuit.cpuCode == CircuitOptions::CpuCode::Jit || o.circuit.optLevel > 0
                         ? C::Jit
                         : C::Auto;
    Model model = Model::fromCircuit(std::move(circuit), device);
    std::vector<std::string> notes;
    // --devices: the circuit on each GPU named, for cases split evenly over them.
    std::vector<Model> spread;
    auto gpus = requestedGpus(o.target, model.device() == DeviceKind::Cuda, notes);
    if (!gpus)
        return gpus.error();
    if (gpus->size() > 1 && model.device() == DeviceKind::Cuda)
        for (int ordinal : *gpus) {
            auto onGpu = model.onGpu(ordinal);
            if (!onGpu)
                return onGpu.error();
            spread.push_back(std::move(*onGpu));
        }
    auto route = std::make_unique<MlfRoute>(std::move(zdd), std::move(model), std::move(spread),
                                            o.target.device);
    route->notes = std::move(notes);
    return std::unique_ptr<Route>(std::move(route));
}

} // namespace

const RouteKind kMlfRoute{"mlf", true, takesMlf, estimateMlf, compileMlf};

} // namespace zbddc::pipeline
