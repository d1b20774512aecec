// The bucket-elimination route: a cost network (a .wcsp, a UAI MARKOV network, or a Bayesian
// network of any format, its CPTs read as -ln p) ordered here (order_choice.h), turned into a
// TensorProgram and solved to its optimum and an optimal assignment (runtime/bucket_elimination),
// or compiled into a problem.so. A network of weights also answers PR, its partition function
// summed in the sum-product semiring (partition_be.h). Each evidence case is one solve.
#include "compiler/elimination/elimination_stats.h"
#include "compiler/junction_tree/treewidth_bound.h"
#include "compiler/frontends/factor_model/factor_model.h"
#include "pipeline/route.h"
#include "pipeline/route_choice.h"
#include "pipeline/route_solution.h"
#include "runtime/bucket_elimination/write_problem_library.h"
#include "runtime/bucket_elimination/partition_be.h"
#include "runtime/bucket_elimination/solve_be.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>

namespace zbddc::pipeline {

TaskResult taskResultOf(const CostNetwork &net, const Solution &sol) {
    TaskResult r;
    r.task = Task::Mpe;
    r.assignment = sol.assignment;
    r.mpeTied = sol.tied;
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

const std::string kNoGpu = "no usable GPU (or no CUDA backend in this build); ran on the CPU";
const std::string kIncompleteOnCpu = "--incomplete-tables runs on the CPU executor";

TaskResult partitionResultOf(const PartitionAnswer &z) {
    TaskResult r;
    r.task = Task::Pr;
    r.log10 = z.logZ / std::numbers::ln10;
    r.value = std::exp(z.logZ); // inf beyond a double: log10 is the answer then
    r.device = z.device;
    r.elimination = EliminationReport{z.stats.inducedWidth, z.stats.largestTableEntries};
    r.timeMs = z.stats.totalMs;
    return r;
}

bool takesCostNetwork(ModelKind kind) {
    return kind == ModelKind::CostNetwork || kind == ModelKind::Network;
}

class EliminationRoute final : public Route {
  public:
    EliminationRoute(CostNetwork net, std::vector<Variable> variables, BeOptions options,
                     DeviceKind asked, bool fromNetwork)
        : net_(std::move(net)), variables_(std::move(variables)), options_(std::move(options)),
          asked_(asked), fromNetwork_(fromNetwork) {}

    const std::vector<Variable> &variables() const override { return variables_; }
    std::vector<Task> tasks() const override {
        if (net_.integerCosts)
            return {Task::Mpe};
        return {Task::Pr, Task::Mpe};
    }
    std::vector<Result<TaskResult>> answer(Task task, std::span<const Evidence> cases,
                                           const TaskOptions &) override {
        std::vector<Result<TaskResult>> results;
        for (const Evidence &e : cases) {
            const bool sum = task == Task::Pr && !net_.integerCosts;
            if (task != Task::Mpe && !sum) {
                results.push_back(error(net_.integerCosts
                                            ? "bucket elimination answers mpe only on a weighted "
                                              "CSP (optimal cost and assignment)"
                                            : "bucket elimination answers pr and mpe (mar: --route "
                                              "jt, or --route lbp approximately)"));
                continue;
            }
            if (!e.contradiction.empty() && sum) { // P(e) = 0, as on any network
                results.push_back(partitionResultOf(
                    PartitionAnswer{-std::numeric_limits<double>::infinity(), false, {}, {}}));
                continue;
            }
            if (!e.contradiction.empty()) {
                results.push_back(error("the evidence contradicts itself: " + e.contradiction));
                continue;
            }
            BeOptions options = options_;
            options.evidence = e.states; // unobserved: kNone
            if (sum) {
                auto z = partitionFunction(net_, options);
                if (!z) {
                    results.push_back(z.error());
                    continue;
                }
                noteFallback(asked_, z->device.kind, kNoGpu);
                results.push_back(partitionResultOf(*z));
                continue;
            }
            auto sol = solveBucketElimination(net_, options);
            if (!sol) {
                results.push_back(sol.error());
                continue;
            }
            noteFallback(asked_, sol->device.kind,
                         options_.incompleteTables ? kIncompleteOnCpu : kNoGpu);
            if (!sol->feasible && fromNetwork_) { // as every route says of a network
                results.push_back(undefinedError(Task::Mpe));
                continue;
            }
            results.push_back(taskResultOf(net_, *sol));
        }
        return results;
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
    bool fromNetwork_; // a network's CPTs as costs: impossible evidence is an error, as elsewhere
};

Result<std::unique_ptr<Route>> compileElimination(RouteInput in) {
    ModelFile &m = in.model;
    if (!m.costNetwork && m.network) // a network's CPTs as costs -ln p, whatever its format
        m.costNetwork = factorCostNetwork(factorModelOf(*m.network));
    if (!m.costNetwork)
        return errorAt(m.path, 0, "bucket elimination reads networks and cost networks");
    const CostNetwork &net = *m.costNetwork;
    // PR's messages are the tree's separators under the same order: it searches as the tree does
    // (Grids_16: min-fill's messages 10^9.1 entries, beyond the limit; the search's fit).
    const bool sum = in.options.task == Task::Pr && !net.integerCosts;
    if (sum && !in.options.order.given()) { // before a search that a dense graph makes long
        const InteractionGraph graph = buildInteractionGraph(net.domainSizes, functionScopes(net));
        const double least = leastLargestCliqueEntries(graph), limit = BeOptions{}.maxTotalEntries;
        uint32_t widest = 1;
        for (uint32_t d : net.domainSizes)
            widest = std::max(widest, d);
        if (least / widest > limit) {
            char why[200];
            std::snprintf(why, sizeof why,
                          "bucket elimination needs a message of at least %.3g entries under "
                          "every order (degeneracy %u), beyond the limit of %.3g",
                          least / widest, degeneracy(graph), limit);
            return errorAt(m.path, 0, why + std::string(kNoExactRoute));
        }
    }
    auto order = chooseOrder(net.domainSizes, functionScopes(net), in.options.order,
                             sum ? "search" : "min-fill");
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
    options.execution.gpuSwitches = target.gpuSwitches;
    // One problem is one solve: auto takes a usable GPU whatever the number of cases, and a
    // missing GPU is not an error (--device cuda runs on the CPU then, and says so).
    const bool gpu = target.device == DeviceKind::Auto || target.device == DeviceKind::Cuda;
    options.executor = gpu ? "auto" : deviceKindName(target.device);
    auto route = std::make_unique<EliminationRoute>(
        net, m.variables.empty() ? costNetworkVariables(net) : m.variables, std::move(options),
        target.device, m.kind == ModelKind::Network);
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
