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

Result<std::optional<JunctionTree>>
caseJunctionTree(const JunctionTree &network, const std::vector<std::vector<uint32_t>> &families,
                 const std::vector<uint32_t> &states, CaseTree choice) {
    if (states.size() != network.numVariables() || families.size() != network.factorClique.size())
        return error("internal error: the case does not match the junction tree's network");
    if (choice == CaseTree::Network)
        return std::optional<JunctionTree>();
    std::vector<std::vector<uint32_t>> sliced = families;
    for (auto &scope : sliced)
        std::erase_if(scope, [&](uint32_t v) { return states[v] != UINT32_MAX; });
    // A factor observed whole is a number: placed in the clique of one of its variables (a CPT's
    // own, factor f being variable f's) rather than all such at the root, where their product
    // could underflow before any message rescales it.
    for (uint32_t f = 0; f < sliced.size(); ++f)
        if (sliced[f].empty() && !families[f].empty()) {
            const bool own =
                std::find(families[f].begin(), families[f].end(), f) != families[f].end();
            sliced[f] = {own ? f : families[f].front()};
        }
    const InteractionGraph graph = buildInteractionGraph(network.domainSizes, sliced);
    const double networkEntries = unobservedCliqueEntries(network, states);
    double degreeSquares = 0;
    for (const auto &n : graph.neighbours)
        degreeSquares += static_cast<double>(n.size()) * static_cast<double>(n.size());
    if (choice == CaseTree::ByCost && networkEntries < kCaseTreeGain * degreeSquares)
        return std::optional<JunctionTree>();
    // Weighted min-fill first: of the four greedy heuristics, the best alone on the
    // evidence-reduced munins and barley. The others follow while the best tree so far is
    // still large enough to pay for one more run (a case's largest trees, where one heuristic
    // may miss by 2×); the fewest entries win, the earlier heuristic on a tie.
    std::vector<uint32_t> best;
    double bestEntries = 0;
    for (OrderHeuristic h : {OrderHeuristic::WeightedMinFill, OrderHeuristic::MinFill,
                             OrderHeuristic::MinWeight, OrderHeuristic::MinDegree}) {
        if (!best.empty() && bestEntries < kCaseTreeGain * degreeSquares)
            break;
        std::vector<uint32_t> order = greedyOrder(graph, h);
        const double entries = analyzeOrder(graph, order).totalCliqueEntries;
        if (best.empty() || entries < bestEntries)
            best = std::move(order), bestEntries = entries;
    }
    auto tree = buildJunctionTree(network.domainSizes, sliced, best);
    if (!tree)
        return tree.error();
    if (choice == CaseTree::ByCost && unobservedCliqueEntries(*tree, states) >= networkEntries)
        return std::optional<JunctionTree>();
    return std::optional<JunctionTree>(std::move(*tree));
}

} // namespace zbddc
