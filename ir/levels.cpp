#include "ir/levels.h"

namespace zbddc {

std::vector<uint32_t> asapLevels(const Circuit &c) {
    return longestPathLevels(c.numNodes(), [&](NodeId id, auto visit) {
        for (NodeId p : operandsOf(c, id))
            visit(p);
    });
}

} // namespace zbddc
