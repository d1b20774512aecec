#include "runtime/junction_tree/factor_model_route.h"

#include "compiler/elimination/elimination_order.h"
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/treewidth_bound.h"

#include <cmath>
#include <cstdio>

namespace zbddc {

std::optional<std::string> junctionTreeTooLarge(const JunctionTreeStats &stats,
                                                double memoryBytes) {
    const double bytes = 8 * (stats.totalCliqueEntries + stats.totalSeparatorEntries);
    if (memoryBytes <= 0 || bytes <= memoryBytes)
        return std::nullopt;
    char why[256];
    std::snprintf(why, sizeof why,
                  "the junction tree needs %.3g bytes of tables (%.3g clique entries, the largest "
                  "2^%.1f, induced width %u), more than the %.3g bytes allowed",
                  bytes, stats.totalCliqueEntries, std::log2(stats.largestCliqueEntries),
                  stats.inducedWidth, memoryBytes);
    return std::string(why);
}

std::optional<std::string> junctionTreeSurelyTooLarge(const FactorModel &model,
                                                      double memoryBytes) {
    if (memoryBytes <= 0)
        return std::nullopt;
    const InteractionGraph graph = buildInteractionGraph(model.domainSizes, model.sortedScopes());
    const double entries = leastLargestCliqueEntries(graph);
    if (8 * entries <= memoryBytes)
        return std::nullopt;
    char why[256];
    std::snprintf(why, sizeof why,
                  "every junction tree of this model holds a clique of at least %.3g entries "
                  "(%.3g bytes; the interaction graph's degeneracy %u bounds its treewidth), more "
                  "than the %.3g bytes allowed",
                  entries, 8 * entries, degeneracy(graph), memoryBytes);
    return std::string(why);
}

Result<JunctionTreeModel> openFactorModelJunctionTree(FactorModel model,
                                                      const std::vector<uint32_t> &order,
                                                      const FactorModelTreeOptions &options,
                                                      JunctionTreeStats *stats) {
    auto tree = buildJunctionTree(model.domainSizes, model.sortedScopes(), order);
    if (!tree)
        return tree.error();
    const JunctionTreeStats st = junctionTreeStats(*tree);
    if (stats)
        *stats = st;
    if (auto why = junctionTreeTooLarge(st, options.memoryBytes))
        return error(*why);
    JunctionTreeOptions run = options.run;
    // The CPU answers each case alone, over its evidence's slices: the batched tree's size, which
    // the executor's own budget (a quarter of the free memory) is weighed against, overstates it.
    if (run.executor == "cpu" && run.memoryBudgetBytes == 0 && options.memoryBytes > 0)
        run.memoryBudgetBytes = static_cast<uint64_t>(options.memoryBytes);
    return JunctionTreeModel(std::move(model), std::move(*tree), run);
}

} // namespace zbddc
