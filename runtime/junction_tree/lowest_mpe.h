// One case's MPE under the tie rule (pipeline/mpe_tie_break.h), on the CPU: the junction tree
// lowered for that case alone (its factors sliced by its evidence, on the case's own tree where
// that pays: evidence_tree.h, junction_tree_per_case.h), collected in max-product and walked
// back by recoverLowestAssignment (ir/tensor_program.h):
// among the assignments whose value reaches the optimum within the tie tolerance, the
// lexicographically lowest in the order the walk decides the variables.
#pragma once

#include "compiler/frontends/factor_model/factor_model.h"
#include "compiler/junction_tree/evidence_tree.h"
#include "compiler/junction_tree/junction_tree.h"
#include "compiler/junction_tree/lower_junction_tree.h"
#include "runtime/evidence.h"

#include <cstdint>
#include <vector>

namespace zbddc {

struct LowestMpe {
    std::vector<uint32_t> assignment; // a state per variable, observed ones at their states
    double logValue = 0;              // natural log of the optimum, max_x Π_f φ_f(x, e)
    // The unobserved variables in the order the walk decided them: the order the assignment
    // is lowest in.
    std::vector<uint32_t> decisionOrder;
};

// `network` is the model's tree (buildJunctionTree over `families`, model.sortedScopes());
// `rowsSumToOne` is factorRowsSumToOne(model). Every choice on the way is a function of the
// model, the tree and the case. Impossible evidence (optimum 0) is an error.
Result<LowestMpe> lowestMpe(const FactorModel &model, const JunctionTree &network,
                            const std::vector<std::vector<uint32_t>> &families,
                            const std::vector<uint8_t> &rowsSumToOne, const Evidence &evidence);

// lowestMpe's walk over a case's max-product program `lowered` (lowered with the case's states,
// collected into `tables`): the assignment and the decision order; logValue is left 0.
LowestMpe lowestAssignment(const JunctionTreeProgram &lowered,
                           const std::vector<std::vector<double>> &tables,
                           const Evidence &evidence);

// What lowestMpe's answers are a function of, besides the model's values and the case: the
// network tree, the factors' scopes and how a case's tree is chosen (lowestMpe's is ByCost), as
// the first 64 bits of their SHA-256, never 0. A route that propagates each case as lowestMpe
// does and walks it with lowestAssignment has given the rule's assignment where its key equals
// the rule's.
uint64_t lowestMpeKey(const JunctionTree &network,
                      const std::vector<std::vector<uint32_t>> &families, CaseTree caseTree);

} // namespace zbddc
