// A size model for the MLF's ZBDD under a BN-variable order, and an order search on it.
//
// Why: the MLF f = Σ_x Π_v λ_{x_v} θ_{x_v|u} is a family of sets; cut the ZBDD variable order
// after the λ groups of a prefix P of the BN variables (each CPT's θ group placed right after
// the last λ group of its family). Two terms that agree on the prefix's "frontier" — the prefix
// variables that still share a CPT family with a variable below the cut — have the same set of
// completions, so the ZBDD has at most Π_{X in frontier} |X| distinct sub-families at that cut
// (as an OBDD's width follows the order's vertex separation). The sum of these products over
// the cuts is an upper-bound-shaped estimate of the node count, cheap to evaluate (linear in the
// network), so orders can be searched on it before anything is compiled.
#pragma once

#include "compiler/frontends/bn/bayes_net.h"

#include <cstdint>
#include <vector>

namespace zbddc {

// log of Σ_cuts Π_{X in frontier} |X| for the BN-variable order `order` (top first). Natural
// log, so that networks whose estimate overflows a double still compare.
double frontierLogCost(const BayesNet &net, const std::vector<uint32_t> &order);

// Largest frontier of `order`, as log Π |X|.
double frontierLogWidth(const BayesNet &net, const std::vector<uint32_t> &order);

// An order of the BN variables with a small frontierLogCost: greedy vertex-separation orders
// (each next variable the one that keeps the frontier smallest) from several starts, and each
// of the `seeds` given, improved by moving single variables (sifting within a window) while the
// cost drops. Deterministic; the sifting is bounded by about `work` elementary steps.
std::vector<uint32_t> searchFrontierOrder(const BayesNet &net,
                                          const std::vector<std::vector<uint32_t>> &seeds,
                                          size_t work = 200'000'000);

} // namespace zbddc
