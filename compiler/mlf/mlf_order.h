// Orders for the ZBDD variables of a network's MLF (Minato, Satoh, Sato, IJCAI 2007): which BN
// variable's indicators λ come where, and where each CPT's parameters θ go. The ZBDD's top
// variable is the first of the order.
#pragma once

#include "compiler/frontends/bn/bayes_net.h"

#include <cstdint>
#include <vector>

namespace zbddc {

enum class MlfOrdering : uint8_t {
    // Minato et al. 2007: BN variables by depth-first search from the sinks towards the parents
    // (ancestors first), each variable's λ group followed at once by its CPT's θ group.
    Paper,
    // Ours: the reverse of a greedy min-fill elimination order of the moral graph (so variables
    // eliminated late, which sit in many cliques, are at the top), each CPT's θ group placed just
    // below the lowest λ group of its family, where the CPT's last variable has been decided.
    MinFill,
    // Ours: the order with the smallest frontier estimate (mlf_frontier.h) among greedy
    // vertex-separation orders and the two above, improved by sifting on that estimate; θ
    // placed as for MinFill.
    Frontier,
};

const char *mlfOrderingName(MlfOrdering ordering);

struct MlfBlock {
    bool theta;        // false: the λ group of `variable`; true: the θ group of its CPT
    uint32_t variable; // BN variable
};

// The BN-variable order (top first) of an ordering heuristic.
std::vector<uint32_t> mlfVariableOrder(const BayesNet &net, MlfOrdering ordering);

// The block sequence (each variable's λ and θ groups exactly once), top first. Paper keeps each
// θ group right below its own variable's λ group; the others put it right below the lowest λ
// group of its family, where the CPT becomes complete. thetaAtBottom moves every θ group below
// all λ groups instead (kept for measurement).
std::vector<MlfBlock> mlfOrder(const BayesNet &net, MlfOrdering ordering,
                               bool thetaAtBottom = false);
// The same for a BN-variable order already computed by mlfVariableOrder(net, ordering).
std::vector<MlfBlock> mlfBlocks(const BayesNet &net, const std::vector<uint32_t> &order,
                                MlfOrdering ordering, bool thetaAtBottom = false);

} // namespace zbddc
