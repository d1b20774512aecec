// The bucket-elimination route: a cost network (a .wcsp, a UAI MARKOV network, or a BAYES .uai
// read as -log costs) ordered here (order_choice.h), turned into a TensorProgram and solved to
// its optimum and an optimal assignment (runtime/bucket_elimination), or compiled into a
// problem.so. Each evidence case is one solve.
#include "compiler/elimination/elimination_stats.h"
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "pipeline/route.h"
#include "pipeline/route_solution.h"
#include "runtime/bucket_elimination/write_problem_library.h"
#include "runtime/bucket_elimination/solve_be.h"

#include <cmath>

namespace zbddc::pipeline {

TaskResult taskResultOf(const CostNetwork &net, const Solution &sol) {
    TaskResult r;
    r.task = Task::Mpe;
    r.assignment = sol.assignment;
    r.cost = sol.feasible ? net.costText(sol.cost) : "null";
    if (!net.integerCosts && sol.feasible) { // -ln of a probability: the MPE's value
        const double cost = net.costValue(sol.cost);
        r.value = std::exp(-cost);
        r.log10 = -cost / std::log(10.0);
    }
    r.device = sol.device;
    r.elimination = EliminationReport{sol.stats.inducedWidth, sol.stats.largestTableEntries};
    r.timeMs = sol.stats.totalMs;
    return r;
}

namespace {

bool takesCostNetwork(ModelKind kind) {
    return kind == ModelKind::CostNetwork || kind == ModelKind::Network;
}

class EliminationRoute final : public Route {
  public:
    EliminationRoute(CostNetwork net, std::vector<Variable> variables, BeOptions options,
                     DeviceKind asked)
        : net_(std::move(net)), variables_(std::move(variables)), options_(std::move(options)),
          asked_(asked) {}

    const std::vector<Variable> &variables() const override { return variables_; }
    std::vector<Task> tasks() const override { return {Task::Mpe}; }
    std::vector<Result<TaskResult>> answer(Task task, std::span<const Evidence> cases,
                                           const TaskOptions &) override {
        return solveEachCase(task, cases, "bucket elimination",
                             [&](const std::vector<uint32_t> &states) -> Result<TaskResult> {
                                 BeOptions options = options_;
                                 options.evidence = states; // unobserved: kNone
                                 auto sol = solveBucketElimination(net_, options);
                                 if (!sol)
                                     return sol.error();
                                 noteFallback(asked_, sol->device.kind,
                                              "no usable GPU (or no CUDA backend in this build); "
                                              "ran on the CPU");
                                 return taskResultOf(net_, *sol);
                             });
    }
    Status save(const std::string &path, const SaveOptions &options) override {
        auto written = writeProblemLibrary(net_, options_, path, options.emitC, options.symbolPrefix);
        if (!written)
            return error(written.error().message);
        return Ok{};
    }

  private:
    CostNetwork net_;
    std::vector<Variable> variables_;
    BeOptions options_;
    DeviceKind asked_;
};

Result<std::unique_ptr<Route>> compileElimination(RouteInput in) {
    ModelFile &m = in.model;
    if (!m.costNetwork) { // a BAYES .uai read again as -log costs
        auto net = readCostNetworkFile(m.path);
        if (!net)
            return net.error();
        m.costNetwork = std::move(*net);
    }
    const CostNetwork &net = *m.costNetwork;
    auto order = chooseOrder(net.domainSizes, functionScopes(net), in.options.order, "min-fill");
    if (!order)
        return order.error();
    const Target &target = in.options.target;
    BeOptions options;
    options.order = std::move(order->order);
    options.incompleteTables = in.options.elimination.incompleteTables;
    if (in.options.elimination.splitThreshold)
        options.execution.splitThresholdEntries = in.options.elimination.splitThreshold;
    options.execution.devices = target.devices;
    if (target.devices.empty() && target.gpus.size() == 1)
        options.execution.gpu = target.gpus[0];
    else if (target.devices.empty()) // ordinals as --devices writes them
        for (size_t i = 0; i < target.gpus.size(); ++i)
            options.execution.devices += (i ? "," : "") + std::to_string(target.gpus[i]);
    options.execution.threads = target.threads;
    // One problem is one solve: auto takes a usable GPU whatever the number of cases, and a
    // missing GPU is not an error (--device cuda runs on the CPU then, and says so).
    const bool gpu = target.device == DeviceKind::Auto || target.device == DeviceKind::Cuda;
    options.executor = gpu ? "auto" : deviceKindName(target.device);
    auto route = std::make_unique<EliminationRoute>(
        net, m.variables.empty() ? costNetworkVariables(net) : m.variables, std::move(options),
        target.device);
    if (!target.devices.empty() && !gpu)
        route->notes.push_back("--devices is for the GPU executor; --device " +
                               std::string(deviceKindName(target.device)) + " ignores it");
    else if (!target.devices.empty() && !gpuUsable())
        route->notes.push_back("--devices " + target.devices + " ignored: " +
                               gpuUsable().error().message);
    return std::unique_ptr<Route>(std::move(route));
}

} // namespace

const RouteKind kEliminationRoute{"be", true, takesCostNetwork, nullptr, compileElimination};

} // namespace zbddc::pipeline
