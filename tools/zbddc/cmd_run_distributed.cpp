// `zbddc run PROBLEM --distributed`, every rank started by mpirun: DPOP (runtime/dpop/solve_dpop.h)
// in place of centralised bucket elimination. Rank 0 prints what the centralised run prints; its
// JSON object gains a "distributed" member: the messages, the largest UTIL table, each agent's
// compute time and the simulated runtime.
#include "compiler/elimination/agent_file.h"
#include "compiler/elimination/elimination_stats.h"
#include "ir/number_text.h"
#include "pipeline/route_solution.h"
#include "runtime/dpop/solve_dpop.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/output.h"

#include <iostream>
#include <sstream>

namespace zbddc::cli {

namespace {

std::string distributedJson(const DpopStats &s) {
    std::ostringstream out;
    out << ", \"distributed\": {\"ranks\": " << s.ranks << ", \"agents\": " << s.agents
        << ", \"pseudo_tree\": \"" << s.pseudoTree << "\", \"tree_depth\": " << s.treeDepth
        << ", \"util_messages\": " << s.utilMessages << ", \"value_messages\": " << s.valueMessages
        << ", \"messages\": " << s.utilMessages + s.valueMessages
        << ", \"message_bytes\": " << s.messageBytes << ", \"mpi_messages\": " << s.mpiMessages
        << ", \"mpi_bytes\": " << s.mpiBytes
        << ", \"largest_util_entries\": " << jsonNumber(s.largestUtilEntries)
        << ", \"simulated_ms\": " << jsonNumber(s.simulatedMs)
        << ", \"setup_ms\": " << jsonNumber(s.setupMs)
        << ", \"protocol_ms\": " << jsonNumber(s.protocolMs) << ", \"agent_compute_ms\": [";
    for (size_t a = 0; a < s.agentComputeMs.size(); ++a)
        out << (a ? ", " : "") << jsonNumber(s.agentComputeMs[a]);
    out << "]}";
    return out.str();
}

} // namespace

int runDistributedCommand(const RunOptions &o) {
    const CostNetworkRunOptions &flags = o.costNetwork;
    if (Status s = distributedRunAvailable(); !s) {
        std::cerr << "zbddc: " << s.error().message << "\n";
        return 2;
    }
    if (!o.evidence.empty() || flags.incompleteTables) {
        std::cerr << "zbddc: --distributed takes neither --evidence nor --incomplete-tables\n";
        return 2;
    }
    if (!flags.order.heuristic.empty() && flags.order.heuristic != "min-fill")
        std::cerr << "zbddc: note: --distributed orders the agents by min-fill (or --order); "
                     "--heuristic is ignored\n";
    auto model = pipeline::readModel(o.model, o.modelOptions);
    if (!model)
        return reportError(model.error());
    if (!model->costNetwork || model->problemLibrary) {
        std::cerr << "zbddc: --distributed reads a .wcsp or MARKOV .uai, not a "
                  << pipeline::modelKindName(model->kind) << "\n";
        return 2;
    }
    const CostNetwork &net = *model->costNetwork;
    DpopOptions options;
    // A missing GPU is not an error: --device cuda runs on the CPU then.
    options.executor = o.device == "cpu" ? "cpu" : "auto";
    options.execution.devices = flags.devices;
    options.timeoutS = flags.phaseTimeout;
    if (!flags.order.orderFile.empty()) {
        auto order = pipeline::chooseOrder(net.domainSizes, functionScopes(net), flags.order,
                                           "min-fill");
        if (!order)
            return reportError(order.error());
        options.order = std::move(order->order);
    }
    if (!flags.agentsFile.empty()) {
        auto agents = readAgentFile(flags.agentsFile, net.numVariables());
        if (!agents)
            return reportError(agents.error());
        options.agentOf = std::move(*agents);
    }
    auto run = solveDpop(net, options);
    if (!run) {
        const int code = reportError(errorAt(o.model, 0, run.error().message));
        abortDistributedRun(code); // the other ranks would wait for this one until their timeout
        return code;
    }
    if (!run->reporter)
        return 0;
    return printSolution(o, pipeline::taskResultOf(net, run->solution), model->variables,
                         distributedJson(run->stats));
}

} // namespace zbddc::cli
