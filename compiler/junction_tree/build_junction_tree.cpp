#include "compiler/junction_tree/build_junction_tree.h"

#include "compiler/elimination/elimination_order.h"
#include "compiler/junction_tree/clique_tree.h"
#include "compiler/junction_tree/maximal_cliques.h"
#include "compiler/junction_tree/moral_graph.h"
#include "compiler/junction_tree/triangulate.h"
#include "compiler/junction_tree/verify_junction_tree.h"

#include <string>

namespace zbddc {

Result<JunctionTree> buildJunctionTree(const std::vector<uint32_t> &domainSizes,
                                       const std::vector<std::vector<uint32_t>> &factorScopes,
                                       const std::vector<uint32_t> &order, bool verify) {
    const size_t n = domainSizes.size();
    if (n >= UINT32_MAX)
        return error("too many variables for 32-bit ids");
    for (size_t f = 0; f < factorScopes.size(); ++f)
        for (uint32_t v : factorScopes[f])
            if (v >= n)
                return error("factor " + std::to_string(f) + " names unknown variable " +
                             std::to_string(v));
    if (Status s = checkOrder(order, n); !s)
        return s.error();
    auto triangulation = triangulate(buildInteractionGraph(domainSizes, factorScopes), order);
    if (!triangulation)
        return triangulation.error();
    JunctionTree jt =
        buildCliqueTree(domainSizes, *triangulation, maximalCliques(*triangulation), factorScopes);
    if (verify)
        if (Status s = verifyJunctionTree(jt, factorScopes); !s)
            return error("internal error: the junction tree fails verification: " +
                         s.error().message);
    return jt;
}

Result<JunctionTree> buildJunctionTree(const BayesNet &net, const std::vector<uint32_t> &order,
                                       bool verify) {
    return buildJunctionTree(networkDomainSizes(net), familyScopes(net), order, verify);
}

} // namespace zbddc
