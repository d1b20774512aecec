// Pairwise factor graphs generated from a fixed seed, for loopy BP's tests and benchmarks
// (inputs too large to commit are made on the machine that runs them):
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
#include <random>
#include <string>
#include <vector>

namespace zbddc::testing {

inline constexpr uint32_t kProteinVariables = 436, kProteinPairwiseFactors = 4476,
                          kProteinLabels = 31;

// A unary factor of random log values in [-0.5, 0.5) on v.
inline void addRandomField(FactorGraph &g, uint32_t v, std::mt19937_64 &rng) {
    std::uniform_real_distribution<double> u(-0.5, 0.5);
    LoopyFactor f{{v}, std::vector<double>(g.domainSizes[v])};
    for (double &x : f.logValues)
        x = u(rng);
    g.factors.push_back(std::move(f));
}

inline FactorGraph pairwiseGrid(uint32_t side, uint32_t labels, double coupling, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    FactorGraph g;
    g.file =
        "grid" + std::to_string(side) + "x" + std::to_string(side) + "-" + std::to_string(labels);
    g.domainSizes.assign(size_t(side) * side, labels);
    for (uint32_t v = 0; v < side * side; ++v)
        addRandomField(g, v, rng);
    for (uint32_t r = 0; r < side; ++r)
        for (uint32_t c = 0; c < side; ++c) {
            const uint32_t v = r * side + c;
            for (uint32_t w : {c + 1 < side ? v + 1 : v, r + 1 < side ? v + side : v}) {
                if (w == v)
                    continue;
                const double j = coupling * u(rng);
                LoopyFactor f{{v, w}, std::vector<double>(size_t(labels) * labels, 0.0)};
                for (uint32_t a = 0; a < labels; ++a)
                    f.logValues[a * labels + a] = j;
                g.factors.push_back(std::move(f));
            }
        }
    (void)finishFactorGraph(g); // well formed by construction
    return g;
}

inline FactorGraph proteinLikeModel(uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> n(0.0, 0.3);
    FactorGraph g;
    g.file = "protein-like-436";
    g.domainSizes.assign(kProteinVariables, kProteinLabels);
    for (uint32_t v = 0; v < kProteinVariables; ++v)
        addRandomField(g, v, rng);
    // Residue pairs by distance along the chain, 1, 2, 3, ...: every pair at distance d before
    // any at d + 1, until the factor count is reached (the last distance only partly).
    uint32_t made = 0;
    for (uint32_t d = 1; made < kProteinPairwiseFactors; ++d)
        for (uint32_t v = 0; v + d < kProteinVariables && made < kProteinPairwiseFactors;
             ++v, ++made) {
            LoopyFactor f{{v, v + d}, std::vector<double>(kProteinLabels * kProteinLabels)};
            for (double &x : f.logValues)
                x = n(rng);
            g.factors.push_back(std::move(f));
        }
    (void)finishFactorGraph(g);
    return g;
}

} // namespace zbddc::testing
