#include "compiler/junction_tree/junction_tree_stats.h"

#include <algorithm>

namespace zbddc {

JunctionTreeStats junctionTreeStats(const JunctionTree &jt) {
    JunctionTreeStats s;
    s.variables = jt.numVariables();
    s.factors = static_cast<uint32_t>(jt.factorClique.size());
    s.cliques = jt.numCliques();
    uint32_t mostVariables = 0;
    for (uint32_t c = 0; c < jt.numCliques(); ++c) {
        const double e = jt.entries(jt.clique(c));
        const uint32_t size = static_cast<uint32_t>(jt.clique(c).size());
        if (e > s.largestCliqueEntries || c == 0) {
            s.largestCliqueEntries = e;
            s.largestCliqueVariables = size;
        }
        s.totalCliqueEntries += e;
        mostVariables = std::max(mostVariables, size);
        if (c > 0) {
            const double m = jt.entries(jt.separator(c));
            s.largestSeparatorEntries = std::max(s.largestSeparatorEntries, m);
            s.totalSeparatorEntries += m;
        }
    }
    s.inducedWidth = mostVariables > 0 ? mostVariables - 1 : 0;
    s.height = jt.height();
    for (uint32_t h = 0; h + 1 < jt.collectLevelStart.size(); ++h)
        s.widestLevel = std::max<uint32_t>(s.widestLevel, jt.collectLevel(h).size());
    return s;
}

} // namespace zbddc
