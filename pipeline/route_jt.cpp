// The junction-tree route: a network's order (order_choice.h), its junction tree
// (compiler/junction_tree), lowered into a batched TensorProgram and run on a tensor executor
// (runtime/junction_tree), or compiled into a network.so.
#include "compiler/junction_tree/junction_tree_stats.h"
#include "pipeline/route.h"
#include "runtime/tensor/tensor_executor.h"
#include "runtime/junction_tree/junction_tree_library.h"
#include "runtime/junction_tree/factor_model_route.h"
#include "runtime/junction_tree/junction_tree_model.h"
#include "pipeline/load_model.h"
#include "pipeline/route_choice.h"

#include <cstdio>

namespace zbddc::pipeline {

namespace {

// A Bayesian network, or a UAI MARKOV network (a cost network's kind) through its factor model.
bool takesNetwork(ModelKind kind) {
    return kind == ModelKind::Network || kind == ModelKind::CostNetwork;
}

// Every case propagates over every clique entry: the work is their count times the cases.
std::optional<double> estimateTree(RouteInput in, std::string &what) {
    if (in.model.kind != ModelKind::Network)
        return std::nullopt;
    auto tree = in.model.junctionTree(in.options.order);
    if (!tree)
        return std::nullopt;
    const double entries = junctionTreeStats(**tree).totalCliqueEntries;
    char text[64];
    std::snprintf(text, sizeof text, "%.3g clique entries", entries);
    what = text;
    return entries * static_cast<double>(in.options.expectedCases);
}

class JunctionTreeRoute final : public Route {
  public:
    JunctionTreeRoute(JunctionTreeModel model, std::optional<BayesNet> network,
                      std::string deviceNote)
        : model_(std::move(model)), network_(std::move(network)),
          deviceNote_(std::move(deviceNote)) {}

    const std::vector<Variable> &variables() const override { return model_.variables(); }
    std::vector<Task> tasks() const override { return {Task::Pr, Task::Mar, Task::Mpe}; }
    std::vector<Result<TaskResult>> answer(Task task, std::span<const Evidence> cases,
                                           const TaskOptions &) override {
        if (task == Task::Eval)
            return std::vector<Result<TaskResult>>(
                cases.size(), error("the junction-tree route answers pr, mar or mpe"));
        std::vector<Result<TaskResult>> results = model_.run(task, cases);
        if (!deviceNote_.empty())
            for (Result<TaskResult> &r : results)
                if (r)
                    r->device.addNote(deviceNote_);
        return results;
    }
    void forgetCalls() override { model_.forgetCalls(); }
    Status save(const std::string &path, const SaveOptions &options) override {
        if (!network_) // a network.so holds a Bayesian network's tables
            return error("a MARKOV network's junction tree compiles into no network.so");
        JunctionTreeLibraryOptions library;
        library.batch = options.batch;
        auto written = writeJunctionTreeLibrary(*network_, model_.tree(), path, library);
        if (!written)
            return error(written.error().message);
        notes.push_back(path + " answers " + std::to_string(written->batch) + " case(s) per run");
        return Ok{};
    }

  private:
    JunctionTreeModel model_;
    std::optional<BayesNet> network_; // what a network.so is written from
    std::string deviceNote_;
};

// The executor and devices a Target asks for, and notes where one cannot apply.
struct TreeRun {
    JunctionTreeOptions options;
    std::vector<std::string> notes;
};

Result<TreeRun> treeRunOptions(RouteInput in) {
    const Target &target = in.options.target;
    TreeRun run;
    JunctionTreeOptions &options = run.options;
    std::vector<std::string> &notes = run.notes;
    options.threads = target.threads;
    options.gpuSwitches = target.gpuSwitches;
    switch (in.placement.device) {
    case DeviceKind::Cpu: options.executor = "cpu"; break;
    case DeviceKind::Reference: options.executor = "reference"; break;
    case DeviceKind::Cuda:
        options.executor = "cuda";
        if (auto usable = gpuUsable(); !usable) {
            notes.push_back(usable.error().message + "; ran on the CPU");
            options.executor = "cpu";
        }
        break;
    case DeviceKind::Auto:
    case DeviceKind::Split:
        options.executor = "auto";
        break;
    }
    // --devices: the cases split evenly over the GPUs named (a note and the CPU where none is).
    const bool cpu = options.executor == "cpu" || options.executor == "reference";
    auto gpus = requestedGpus(target, !cpu && gpuUsable(), notes);
    if (!gpus)
        return gpus.error();
    options.gpus = std::move(*gpus);
    return run;
}

// A UAI MARKOV network's factor model through its junction tree (factor_model_route.h), refused
// with its tables' size where they cannot fit in half the memory.
Result<std::unique_ptr<Route>> compileFactorModelTree(RouteInput in) {
    ModelFile &m = in.model;
    if (fileExtension(m.path) != ".uai")
        return errorAt(m.path, 0, "--route jt takes a network (.bif, .xmlbif, .net, .uai), not a "
                                  ".wcsp");
    auto model = readMarkovFactorModel(m, in.options.reading);
    if (!model)
        return model.error();
    const double memory = physicalMemoryBytes() / 2;
    if (auto why = junctionTreeSurelyTooLarge(*model, memory))
        return errorAt(m.path, 0, *why + kNoExactRoute);
    auto order = chooseOrder(model->domainSizes, model->sortedScopes(), in.options.order, "search");
    if (!order)
        return order.error();
    auto run = treeRunOptions(in);
    if (!run)
        return run.error();
    FactorModelTreeOptions options{run->options, memory};
    std::vector<Diagnostic> warnings = std::move(model->warnings);
    auto tree = openFactorModelJunctionTree(std::move(*model), order->order, options);
    if (!tree)
        return errorAt(m.path, 0, tree.error().message + kNoExactRoute);
    auto route =
        std::make_unique<JunctionTreeRoute>(std::move(*tree), std::nullopt, in.placement.why);
    route->notes = std::move(run->notes);
    route->warnings = std::move(warnings);
    return std::unique_ptr<Route>(std::move(route));
}

Result<std::unique_ptr<Route>> compileTree(RouteInput in) {
    ModelFile &m = in.model;
    if (m.kind == ModelKind::CostNetwork)
        return compileFactorModelTree(in);
    auto tree = m.junctionTree(in.options.order);
    if (!tree)
        return tree.error();
    auto run = treeRunOptions(in);
    if (!run)
        return run.error();
    BayesNet net = std::move(*m.network);
    m.network.reset();
    JunctionTree built = std::move(*m.tree);
    m.tree.reset();
    JunctionTreeModel model(net, std::move(built), run->options);
    auto route = std::make_unique<JunctionTreeRoute>(std::move(model), std::move(net),
                                                     in.placement.why);
    route->notes = std::move(run->notes);
    return std::unique_ptr<Route>(std::move(route));
}

} // namespace

const RouteKind kJunctionTreeRoute{"jt", true, takesNetwork, estimateTree, compileTree};

} // namespace zbddc::pipeline
