// `zbddc run PROBLEM --distributed`, every rank started by mpirun: DPOP (runtime/dpop/solve_dpop.h)
// in place of centralised bucket elimination. Rank 0 prints what the centralised run prints; its
// JSON object gains a "distributed" member: the messages, the largest UTIL table, each agent's
// compute time and the simulated runtime.
#include "pipeline/distributed.h"
#include "runtime/tensor/tensor_executor.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/flag_table.h"
#include "tools/zbddc/output.h"

#include <cstdlib>
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
        << ", \"largest_util_work\": " << jsonNumber(s.largestUtilWork)
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
    if (Status s = distributedRunAvailable(); !s)
        return usageError(s.error().message);
    if (!o.evidence.empty() || flags.incompleteTables)
        return usageError("--distributed takes neither --evidence nor --incomplete-tables");
    if (!flags.order.heuristic.empty() && flags.order.heuristic != "min-fill")
        std::cerr << "zbddc: note: --distributed orders the agents by min-fill (or --order); "
                     "--heuristic is ignored\n";
    auto model = pipeline::readModel(o.model, o.modelOptions);
    if (!model)
        return reportError(model.error());
    if (!model->costNetwork || model->problemLibrary)
        return usageError(std::string("--distributed reads a .wcsp or MARKOV .uai, not a ") +
                          pipeline::modelKindName(model->kind));
    pipeline::DistributedOptions options;
    options.device = parseDeviceKind(o.device).value_or(DeviceKind::Auto);
    options.devices = flags.devices;
    options.phaseTimeout = flags.phaseTimeout;
    options.order = flags.order;
    options.agentsFile = flags.agentsFile;
    options.gpuSwitches = gpuSwitchesFromVariables(std::getenv); // ZBDDC_GPU_* (docs/cli.md)
    for (auto [name, rank] : {std::pair{"ZBDDC_DPOP_TEST_EXIT_RANK", &options.testExitRank},
                              {"ZBDDC_DPOP_TEST_SILENT_RANK", &options.testSilentRank}})
        if (const char *value = std::getenv(name); value && *value) // docs/cli.md
            *rank = std::atoi(value);
    auto run = pipeline::solveDistributed(*model, options);
    if (!run) {
        const int code = reportError(run.error());
        abortDistributedRun(code); // the other ranks would wait for this one until their timeout
        return code;
    }
    if (!run->reporter)
        return 0;
    return printSolution(o, run->result, model->variables, distributedJson(run->stats));
}

} // namespace zbddc::cli
