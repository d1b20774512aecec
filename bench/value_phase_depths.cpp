// The VALUE phase's sequential steps before and after decoding by depth: per WCSP, the reducing
// ops (one warp step each, one after another, before) and the decoding DAG's height (the
// __syncthreads-separated steps now), for bucket elimination in wcsp_be's default (min-fill)
// order. `build/bench/value_phase_depths FILE...`.
#include "backends/tensor/cuda/plan/value_phase_plan.h"
#include "compiler/elimination/bucket_program.h"
#include "compiler/elimination/elimination_order.h"
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "support/gpu_settings.h"

#include <cstdio>

using namespace zbddc;

int main(int argc, char **argv) {
    zbddc::gpuSettings = zbddc::gpuSettingsFromVariables(std::getenv); // docs/cli.md
    std::printf("%-40s %8s %8s %8s\n", "instance", "ops", "depths", "widest");
    for (int i = 1; i < argc; ++i) {
        auto net = readCostNetworkFile(argv[i]);
        if (!net) {
            std::fprintf(stderr, "%s\n", net.error().message.c_str());
            return 1;
        }
        std::vector<std::vector<uint32_t>> scopes;
        for (const CostFunction &f : net->functions)
            scopes.push_back(f.scope);
        const InteractionGraph graph = buildInteractionGraph(net->domainSizes, scopes);
        auto program = buildBucketProgram(*net, greedyOrder(graph, OrderHeuristic::MinFill));
        auto plan = program ? cuda::buildValuePhasePlan(*program) : program.error();
        if (!plan) {
            std::fprintf(stderr, "%s\n", plan.error().message.c_str());
            return 1;
        }
        const cuda::ValuePhaseShape s = cuda::valuePhaseShape(*plan);
        std::printf("%-40s %8u %8u %8u\n", argv[i], s.ops, s.depths, s.widest);
    }
    return 0;
}
