#include "compiler/junction_tree/evidence_tree.h"

#include "compiler/elimination/elimination_order.h"
#include "compiler/junction_tree/build_junction_tree.h"

#include <algorithm>

namespace zbddc {

double unobservedCliqueEntries(const JunctionTree &tree, const std::vector<uint32_t> &states) {
    double total = 0;
    for (uint32_t c = 0; c < tree.numCliques(); ++c) {
        double entries = 1;
        for (uint32_t v : tree.clique(c))
            if (states[v] == UINT32_MAX)
                entries *= tree.domainSizes[v];
        total += entries;
    }
    return total;
}

Result<std::optional<JunctionTree>> caseJunctionTree(const JunctionTree &network,
                                                     const std::vector<std::vector<uint32_t>> &families,
                                                     const std::vector<uint32_t> &states,
                                                     CaseTree choice) {
    if (states.size() != network.numVariables() || families.size() != network.factorClique.size())
        return error("internal error: the case does not match the junction tree's network");
    if (choice == CaseTree::Network)
        return std::optional<JunctionTree>();
    std::vector<std::vector<uint32_t>> sliced = families;
    for (auto &scope : sliced)
        std::erase_if(scope, [&](uint32_t v) { return states[v] != UINT32_MAX; });
    const InteractionGraph graph = buildInteractionGraph(network.domainSizes, sliced);
    const double networkEntries = unobservedCliqueEntries(network, states);
    if (choice == CaseTree::ByCost) {
        double degreeSquares = 0;
        for (const auto &n : graph.neighbours)
            degreeSquares += static_cast<double>(n.size()) * static_cast<double>(n.size());
        if (networkEntries < kCaseTreeGain * degreeSquares)
            return std::optional<JunctionTree>();
    }
    // Weighted min-fill: of the four greedy heuristics, the best alone on the evidence-reduced
    // munins and barley (the network's order search runs all four, many times; per case one
    // run is what the gain pays for).
    auto tree = buildJunctionTree(network.domainSizes, sliced,
                                  greedyOrder(graph, OrderHeuristic::WeightedMinFill));
    if (!tree)
        return tree.error();
    if (choice == CaseTree::ByCost && unobservedCliqueEntries(*tree, states) >= networkEntries)
        return std::optional<JunctionTree>();
    return std::optional<JunctionTree>(std::move(*tree));
}

} // namespace zbddc
