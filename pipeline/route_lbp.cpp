// The loopy belief propagation route (approximate): any network or cost network as a factor
// graph (compiler/loopy), its messages run on the CPU or the GPU (runtime/loopy). Every result
// carries its convergence report.
#include "compiler/loopy/factor_graph.h"
#include "pipeline/route.h"
#include "runtime/loopy/loopy_tasks.h"

namespace zbddc::pipeline {

namespace {

bool takesAny(ModelKind kind) {
    return kind == ModelKind::Network || kind == ModelKind::CostNetwork;
}

class LoopyRoute final : public Route {
  public:
    LoopyRoute(FactorGraph graph, std::optional<CostNetwork> costNetwork,
               std::vector<Variable> variables, LoopyOptions options, DeviceKind device)
        : graph_(std::move(graph)), costNetwork_(std::move(costNetwork)),
          variables_(std::move(variables)), options_(options), device_(device) {}

    const std::vector<Variable> &variables() const override { return variables_; }
    std::vector<Task> tasks() const override {
        if (costNetwork_ && !costNetwork_->integerCosts)
            return {Task::Pr, Task::Mar, Task::Mpe}; // a MARKOV network's -log costs
        if (costNetwork_)
            return {Task::Mpe};
        return {Task::Pr, Task::Mar, Task::Mpe};
    }
    std::vector<Result<TaskResult>> answer(Task task, std::span<const Evidence> cases,
                                           const TaskOptions &) override {
        if (task == Task::Eval)
            return std::vector<Result<TaskResult>>(cases.size(),
                                                   error("loopy BP answers pr, mar or mpe"));
        std::vector<Result<TaskResult>> results =
            runLoopyTasks(graph_, task, cases, options_, device_);
        if (!results.empty() && results[0]) // the CPU's device line says why not the GPU
            noteFallback(device_, results[0]->device.kind, results[0]->device.label());
        if (costNetwork_ && task == Task::Mpe) // the assignment's exact cost
            for (Result<TaskResult> &r : results)
                if (r) {
                    const Cost cost = assignmentCost(*costNetwork_, r->assignment);
                    r->cost = costNetwork_->feasible(cost) ? costNetwork_->costText(cost) : "null";
                }
        return results;
    }
  private:
    FactorGraph graph_;
    std::optional<CostNetwork> costNetwork_; // kept to recompute an assignment's cost
    std::vector<Variable> variables_;
    LoopyOptions options_;
    DeviceKind device_;
};

Result<std::unique_ptr<Route>> compileLoopy(RouteInput in) {
    ModelFile &m = in.model;
    const Target &target = in.options.target;
    if (target.device == DeviceKind::Reference || target.device == DeviceKind::Split)
        return error("loopy BP runs on the CPU or a GPU (device auto, cpu or cuda)");
    std::optional<CostNetwork> costNetwork;
    Result<FactorGraph> graph = m.costNetwork ? factorGraphOfCostNetwork(*m.costNetwork, m.path)
                                              : factorGraphOfNetwork(*m.network);
    if (!graph)
        return graph.error();
    if (m.costNetwork)
        costNetwork = std::move(*m.costNetwork);
    LoopyOptions options;
    const LoopyFlags &f = in.options.loopy;
    if (f.iterations)
        options.maxIterations = f.iterations;
    if (f.tolerance >= 0)
        options.tolerance = f.tolerance;
    if (f.damping >= 0)
        options.damping = f.damping;
    options.threads = target.threads;
    options.updateOrder = parseLoopyUpdateOrder(f.updateOrder).value_or(LoopyUpdateOrder::Flooding);
    return std::unique_ptr<Route>(std::make_unique<LoopyRoute>(
        std::move(*graph), std::move(costNetwork), m.variables, options, target.device));
}

} // namespace

const RouteKind kLoopyRoute{"lbp", false, takesAny, nullptr, compileLoopy};

} // namespace zbddc::pipeline
