// A Bayesian network's moral graph: its parents married and directions dropped, i.e. the
// interaction graph of its families {X} ∪ parents(X), one per CPT (Lauritzen and Spiegelhalter
// 1988). Triangulating it (triangulate.h) gives the cliques of a junction tree.
#pragma once

#include "compiler/elimination/elimination_order.h"
#include "compiler/frontends/bn/bayes_net.h"

#include <cstdint>
#include <vector>

namespace zbddc {

// Domain size of each variable, in the network's variable order.
std::vector<uint32_t> networkDomainSizes(const BayesNet &net);

// Family of each variable, {X} ∪ parents(X) ascending: the scope of X's CPT, factor X of the
// junction tree.
std::vector<std::vector<uint32_t>> familyScopes(const BayesNet &net);

InteractionGraph moralGraph(const BayesNet &net);

} // namespace zbddc
