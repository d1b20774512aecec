#include "pipeline/distributed.h"

#include "compiler/elimination/variable_files.h"
#include "compiler/elimination/elimination_stats.h"
#include "pipeline/route_solution.h"

namespace zbddc::pipeline {

Result<DistributedAnswer> solveDistributed(const ModelFile &model, const DistributedOptions &o) {
    if (!model.costNetwork || model.problemLibrary)
        return error(std::string("--distributed reads a .wcsp or MARKOV .uai, not a ") +
                     modelKindName(model.kind));
    const CostNetwork &net = *model.costNetwork;
    DpopOptions options;
    // A missing GPU is not an error: --device cuda runs on the CPU then.
    options.executor = o.device == DeviceKind::Cpu ? "cpu" : "auto";
    options.execution.devices = o.devices;
    options.execution.gpuSwitches = o.gpuSwitches;
    options.timeoutS = o.phaseTimeout;
    options.testExitRank = o.testExitRank;
    options.testSilentRank = o.testSilentRank;
    if (!o.order.orderFile.empty()) {
        auto order = chooseOrder(net.domainSizes, functionScopes(net), o.order, "min-fill");
        if (!order)
            return order.error();
        options.order = std::move(order->order);
    }
    if (!o.agentsFile.empty()) {
        auto agents = readAgentFile(o.agentsFile, net.numVariables());
        if (!agents)
            return agents.error();
        options.agentOf = std::move(*agents);
    }
    auto run = solveDpop(net, options);
    if (!run)
        return errorAt(model.path, 0, run.error().message);
    DistributedAnswer answer;
    answer.reporter = run->reporter;
    answer.stats = run->stats;
    if (run->reporter) {
        answer.result = taskResultOf(net, run->solution);
        answer.result.device.route = "dpop";
    }
    return answer;
}

} // namespace zbddc::pipeline
