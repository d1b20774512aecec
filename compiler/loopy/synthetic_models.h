// Pairwise models generated from a fixed seed, for loopy BP's tests and benchmarks (inputs too
// large to commit are made on the machine that runs them):
//
// - an Ising (2 labels) or Potts (more labels) grid: side × side variables, a random field per
//   variable and a coupling per grid edge, log φ(a, b) = J·[a = b] with J uniform in
//   [-coupling, coupling];
// - a protein-like pairwise model of 1mv8's size as Piatkowski 2011 used it (436 variables,
//   4,476 pairwise factors, 31 labels): residues on a chain, each joined to the residues nearest
//   along it until the factor count is reached (contacts in a folded chain are mostly local),
//   random log tables, and a random field per variable.
#pragma once

#include "compiler/loopy/factor_graph.h"

#include <cstdint>

namespace zbddc {

FactorGraph pairwiseGrid(uint32_t side, uint32_t labels, double coupling, uint64_t seed);

inline constexpr uint32_t kProteinVariables = 436, kProteinPairwiseFactors = 4476,
                          kProteinLabels = 31;
FactorGraph proteinLikeModel(uint64_t seed);

} // namespace zbddc
