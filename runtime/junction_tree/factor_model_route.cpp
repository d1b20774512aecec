#include "runtime/junction_tree/factor_model_route.h"

#include "compiler/junction_tree/build_junction_tree.h"

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
    return JunctionTreeModel(std::move(model), std::move(*tree), options.run);
}

} // namespace zbddc
