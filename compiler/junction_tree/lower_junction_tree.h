// Lowers a factor model's junction tree (a Bayesian network's, a Markov network's) into a
// TensorProgram that propagates a batch of B evidence cases at once (Shafer and Shenoy 1990's
// message passing; Bistaffa et al. 2017 §III's reduce and scatter are its EliminateBucket ops, the
// join never materialised).
//
// The case index is one more variable, `batchVariable` (domain B), in every table that depends
// on the evidence: evidence on X enters as an indicator table λ_X(X, case), 1 where the case
// leaves X unobserved or observes that state, and every message then carries the case. Each
// message is rescaled per case to a maximum of 1 (an InverseMax op, multiplied in by its readers),
// so no case underflows however small P(e) is; the scales are kept to undo it (Koller and
// Friedman 2009 §10.3.3.2 scale messages likewise).
//
//   collect     message c→parent = ⊕_{clique vars ∖ separator} ψ_c ⊗ λ's ⊗ children's messages
//   root        Z(case) = ⊕_{all} of the root's inputs; P(e) = Z ⊗ Π (1 / scale) over collect
//   distribute  message parent→c = ⊕ of the parent's inputs without c's own message; a parent
//               with many children instead materialises its belief once and divides each
//               child's share by that child's message (Jensen et al. 1990's Hugin update)
//   marginals   P(X, e) ∝ ⊕ over the smallest place holding X: a separator (both messages), or
//               X's clique with every message it receives
//
// Semiring sum-product for PR and MAR, max-product for MPE (collect only; the assignment is
// traced back by recoverAssignment over the collect ops, case by case).
#pragma once

#include "compiler/frontends/factor_model/factor_model.h"
#include "compiler/junction_tree/junction_tree.h"
#include "ir/tensor_program.h"

#include <cstdint>
#include <vector>

namespace zbddc {

inline constexpr uint32_t kNoTable = UINT32_MAX;

struct JunctionTreeLowering {
    bool maxProduct = false; // MPE: max-product, collect only
    bool marginals = false;  // MAR: distribute and one marginal table per variable
    uint32_t batch = 1;      // B cases
    // Variables observed in some case of the batch: each gets an indicator table.
    std::vector<uint32_t> observed;
    // Case index fastest (the GPU: a warp's loads coalesce) or slowest (the CPU: one case's rows
    // are contiguous and the potentials stay in cache across cases).
    bool batchFastest = true;
    // How a parent with children distributes (lower_junction_tree.cpp's useBelief and, one case
    // lowered alone, beliefPays): by the estimated cost, or always or never through its
    // materialised belief (tests take both).
    enum class Belief : uint8_t { ByCost, Always, Never } belief = Belief::ByCost;
    // One case lowered alone (the CPU's per-case route): its state per variable, UINT32_MAX where
    // unobserved. Each CPT is sliced by it (a SliceEvidence op) before any product, so every
    // potential and message ranges over unobserved variables only; there are no indicator tables
    // and `batch`, `observed` and `batchFastest` do not apply. Sum-product then leaves out of each
    // message the CPTs that are barren there (Madsen and Jensen 1999): a CPT whose own unobserved
    // variable is summed out and read by nothing else in the product sums to 1 over it, where its
    // rows sum to 1; where they do not (0.3333333 three times), it is replaced by its row sums.
    // Messages are lists of factors, their variables eliminated one at a time (lazy propagation;
    // lower_junction_tree.cpp's `message`); `belief` decides whether a clique's distribute reads
    // its materialised belief (lower_junction_tree.cpp's distributeOutOf).
    std::vector<uint32_t> caseStates;
    // Per factor, whether it is a CPT whose rows sum to 1 (factorRowsSumToOne(model)); empty:
    // computed here. The per-case route computes it once per model. Factors that are not CPTs
    // (a Markov network's) are never barren: they are multiplied in whole.
    std::vector<uint8_t> rowsSumToOne;
};

// The case variable is variable numVariables() of the model.
struct JunctionTreeProgram : BatchedProgram {
    double logScale = 0;                 // the model's (factor_model.h): added to every log of Z(e)
    uint32_t normaliser = kNoTable;      // Z(case), scaled as described above
    std::vector<uint32_t> collectScales; // InverseMax tables of the collect messages
    std::vector<uint32_t> marginalTable; // per variable (MAR): a table over {X, case} ∝ P(X, e)
                                         // (kNoTable for a case's observed variables; a table
                                         // without X: uniform in X)
    std::vector<uint32_t> factorTable;   // per factor: its input table (its CPT as given)
};

// The tree must be the model's (buildJunctionTree over model.sortedScopes()): factor f of the
// tree is model.factors[f].
Result<JunctionTreeProgram> lowerJunctionTree(const FactorModel &model, const JunctionTree &tree,
                                              const JunctionTreeLowering &options);
// A network's tree (buildJunctionTree(net, ...)): its CPTs as factors (factorModelOf).
Result<JunctionTreeProgram> lowerJunctionTree(const BayesNet &net, const JunctionTree &tree,
                                              const JunctionTreeLowering &options);

} // namespace zbddc
