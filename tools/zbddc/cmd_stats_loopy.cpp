// `zbddc stats MODEL --route lbp [--json]`: the factor graph loopy BP runs on (variables,
// factors, edges, message entries, largest factor and domain) and the GPU design it would take.
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "compiler/loopy/factor_graph.h"
#include "compiler/loopy/loopy_design.h"
#include "pipeline/load_model.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/output.h"

#include <algorithm>
#include <iostream>

namespace zbddc::cli {

int statsLoopyCommand(const StatsOptions &o) {
    Result<FactorGraph> graph = [&]() -> Result<FactorGraph> {
        if (isCostNetworkFile(o.model)) {
            auto net = readCostNetworkFile(o.model);
            if (!net)
                return net.error();
            return factorGraphOfCostNetwork(*net, o.model);
        }
        auto net = readNetworkFile(o.model);
        if (!net)
            return net.error();
        return factorGraphOfNetwork(*net);
    }();
    if (!graph)
        return reportError(graph.error());
    const FactorGraph &g = *graph;
    uint64_t largestFactor = 0;
    uint32_t largestDomain = 0, largestDegree = 0;
    for (const LoopyFactor &f : g.factors)
        largestFactor = std::max<uint64_t>(largestFactor, f.logValues.size());
    for (uint32_t v = 0; v < g.numVariables(); ++v) {
        largestDomain = std::max(largestDomain, g.domainSizes[v]);
        largestDegree = std::max(largestDegree, g.degree(v));
    }
    const LoopyGpuPlan single = planLoopyGpu(g, 1), batch = planLoopyGpu(g, 2000);
    if (o.json) {
        std::cout << "{\"route\":\"lbp\",\"variables\":" << g.numVariables()
                  << ",\"factors\":" << g.factors.size() << ",\"edges\":" << g.numEdges()
                  << ",\"message_entries\":" << g.messageEntries()
                  << ",\"largest_factor_entries\":" << largestFactor
                  << ",\"largest_domain\":" << largestDomain
                  << ",\"largest_degree\":" << largestDegree
                  << ",\"pairwise\":" << (g.pairwise() ? "true" : "false")
                  << ",\"gpu_design_1\":" << jsonString(describeLoopyGpuPlan(single))
                  << ",\"gpu_design_2000\":" << jsonString(describeLoopyGpuPlan(batch)) << "}\n";
        return 0;
    }
    std::cout << "route: loopy belief propagation\nvariables: " << g.numVariables()
              << "\nfactors: " << g.factors.size() << (g.pairwise() ? " (pairwise)" : "")
              << "\nedges (messages): " << g.numEdges()
              << "\nmessage entries: " << g.messageEntries()
              << "\nlargest factor: " << largestFactor
              << " entries\nlargest domain: " << largestDomain
              << "\nlargest degree: " << largestDegree
              << "\nGPU design, 1 instance: " << describeLoopyGpuPlan(single)
              << "\nGPU design, 2000 instances: " << describeLoopyGpuPlan(batch) << "\n";
    return 0;
}

} // namespace zbddc::cli
