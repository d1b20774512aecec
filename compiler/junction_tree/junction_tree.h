// A junction tree (clique tree) as plain data: flat arrays and 32-bit ids, the structure that
// belief propagation runs over (Lauritzen and Spiegelhalter 1988; Bistaffa et al. 2017 §II-A3:
// a potential table per clique, a separator table per edge, messages collected to a root and
// distributed back). Built by buildJunctionTree (build_junction_tree.h), checked by
// verifyJunctionTree (verify_junction_tree.h); no table is allocated here.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace zbddc {

inline constexpr uint32_t kNoClique = UINT32_MAX;

struct JunctionTree {
    std::vector<uint32_t> domainSizes; // by variable

    // Cliques, numbered breadth-first from the root: clique 0 is the root, parent[c] < c for
    // every other clique, and the cliques of one depth are one contiguous range of ids.
    std::vector<uint32_t> cliqueStart; // numCliques() + 1 offsets into cliqueVars
    std::vector<uint32_t> cliqueVars;  // each clique's variables, ascending
    std::vector<uint32_t> parent;      // kNoClique for the root

    // The edge {c, parent[c]} is named by its child c; its separator is the intersection of the
    // two cliques, ascending. The root's range is empty. An empty separator joins the trees of
    // separate connected components into one tree (its message is a scalar).
    std::vector<uint32_t> separatorStart; // numCliques() + 1 offsets into separatorVars
    std::vector<uint32_t> separatorVars;

    // Factor f (a network's CPT f: the family of variable f) → the clique its table is
    // multiplied into, one that contains the factor's scope.
    std::vector<uint32_t> factorClique;
    // Variable v → the smallest clique containing it: where evidence on v is entered and its
    // marginal read.
    std::vector<uint32_t> variableClique;

    // Collect (leaves to root): every clique in an order where children come before parents,
    // grouped into levels by height (leaves 0, the root last, alone): at collect level h, each
    // clique of height h absorbs its children's messages and sends its own to its parent, all
    // independently of one another. Distribute runs the depth ranges, root first.
    std::vector<uint32_t> collectOrder;
    std::vector<uint32_t> collectLevelStart; // height() + 2 offsets into collectOrder
    std::vector<uint32_t> depthStart;        // height() + 2 offsets: cliques of depth d are
                                             // [depthStart[d], depthStart[d + 1])

    std::vector<uint32_t> eliminationOrder; // the triangulation's order

    uint32_t numCliques() const { return static_cast<uint32_t>(parent.size()); }
    uint32_t numVariables() const { return static_cast<uint32_t>(domainSizes.size()); }
    // Edges from the root to the deepest leaf: each message pass takes this many sequential steps.
    uint32_t height() const {
        return depthStart.empty() ? 0 : static_cast<uint32_t>(depthStart.size() - 2);
    }
    std::span<const uint32_t> clique(uint32_t c) const {
        return {cliqueVars.data() + cliqueStart[c], cliqueStart[c + 1] - cliqueStart[c]};
    }
    std::span<const uint32_t> separator(uint32_t c) const {
        return {separatorVars.data() + separatorStart[c],
                separatorStart[c + 1] - separatorStart[c]};
    }
    std::span<const uint32_t> collectLevel(uint32_t h) const {
        return {collectOrder.data() + collectLevelStart[h],
                collectLevelStart[h + 1] - collectLevelStart[h]};
    }
    // Entries of a complete table over these variables, in float64 so that 10^30 reports.
    double entries(std::span<const uint32_t> vars) const {
        double e = 1;
        for (uint32_t v : vars)
            e *= domainSizes[v];
        return e;
    }
};

} // namespace zbddc
