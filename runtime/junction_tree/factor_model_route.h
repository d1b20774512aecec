// The junction-tree route for any factor model (a Markov network, a Bayesian network, a cost
// network read as exp(-cost)): the tree built over the factors' scopes by a given order, its size
// checked before any table exists, and the model that answers PR, MAR and MPE over cases
// (JunctionTreeModel). A tree whose tables do not fit is refused with its estimated size, so the
// caller can point to an approximate route.
#pragma once

#include "compiler/frontends/factor_model/factor_model.h"
#include "compiler/junction_tree/junction_tree_stats.h"
#include "runtime/junction_tree/junction_tree_model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace zbddc {

struct FactorModelTreeOptions {
    JunctionTreeOptions run;
    // The memory the tree's tables (cliques and separators, float64) may take; 0: no check. The
    // CPU's per-case route also sizes its threads by it (JunctionTreeOptions::memoryBudgetBytes,
    // where unset).
    double memoryBytes = 0;
};

// Before any order is searched: where every junction tree of the model must hold a clique
// beyond `memoryBytes` (treewidth_bound.h), why; nothing where one may fit.
std::optional<std::string> junctionTreeSurelyTooLarge(const FactorModel &model, double memoryBytes);

// `order`: a permutation of the model's variables (greedyOrder, searchOrder, readOrderFile over
// buildInteractionGraph(model.domainSizes, model.sortedScopes())). `stats` receives the tree's
// sizes, where given, also when it is refused.
Result<JunctionTreeModel> openFactorModelJunctionTree(FactorModel model,
                                                      const std::vector<uint32_t> &order,
                                                      const FactorModelTreeOptions &options,
                                                      JunctionTreeStats *stats = nullptr);

// "the junction tree needs 1.2e+12 bytes of tables (1.5e+11 clique entries, the largest 2^37),
// more than the 1.2e+10 bytes allowed": the refusal, or nothing where it fits.
std::optional<std::string> junctionTreeTooLarge(const JunctionTreeStats &stats, double memoryBytes);

} // namespace zbddc
