// The junction-tree compiler, top to bottom: the factors' interaction graph (a network's moral
// graph) → its triangulation by an elimination order → the maximal cliques → the rooted clique
// tree with separators, factor placement and message levels → the verifier (debug builds).
// The order comes from greedyOrder, searchOrder (order_search.h) or readOrderFile. Nothing here
// allocates a table: the result is the structure, with sizes computed in float64.
#pragma once

#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/junction_tree/junction_tree.h"
#include "ir/result.h"

#include <cstdint>
#include <vector>

namespace zbddc {

#ifdef NDEBUG
inline constexpr bool kVerifyJunctionTrees = false;
#else
inline constexpr bool kVerifyJunctionTrees = true;
#endif

// Factor f has scope factorScopes[f] (variables < domainSizes.size()); `order` must be a
// permutation of the variables. Errors name what is wrong with the input.
Result<JunctionTree> buildJunctionTree(const std::vector<uint32_t> &domainSizes,
                                       const std::vector<std::vector<uint32_t>> &factorScopes,
                                       const std::vector<uint32_t> &order,
                                       bool verify = kVerifyJunctionTrees);

// A Bayesian network's junction tree: factor X is X's CPT, over its family.
Result<JunctionTree> buildJunctionTree(const BayesNet &net, const std::vector<uint32_t> &order,
                                       bool verify = kVerifyJunctionTrees);

} // namespace zbddc
