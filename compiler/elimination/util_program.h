// One agent's UTIL computation in DPOP (Petcu and Faltings 2005 §3.2) as a TensorProgram: the
// join of the agent's cost functions and its children's UTIL messages with the agent's own
// variables projected out by ⊕ — bucket elimination's fused op (Fioretto et al. 2015 §3.2), over
// all of the agent's variables at once. Tables are laid out as bucket_program.h lays them out:
// variables of later agents more significant, so the eliminated ones vary fastest.
#pragma once

#include "compiler/frontends/wcsp/cost_network.h"
#include "ir/tensor_program.h"

#include <span>
#include <vector>

namespace zbddc {

struct UtilProgram {
    TensorProgram program; // one op; none where there is nothing to join (util is an input)
    uint32_t util = 0;     // the table sent to the parent; at the root, of empty scope
    std::vector<uint32_t> separator; // util's scope: the ancestors' variables it depends on
};

// `layoutRank` (per variable): larger ranks are more significant; the agent's own variables
// must rank below every other variable in `inputs`. Own variables that no input mentions keep no
// place in the op (the VALUE phase leaves them at their default).
// The inputs are the agent's `functions` (copied into the program) and its children's `messages`
// (their tables moved into it).
UtilProgram buildUtilProgram(const std::vector<uint32_t> &domainSizes, Semiring semiring,
                             std::span<const CostFunction *const> functions,
                             std::vector<CostFunction> messages,
                             const std::vector<uint32_t> &ownVariables,
                             const std::vector<uint32_t> &layoutRank);

// The UTIL's work: its join's entries, the output's times the eliminated variables' domains.
double utilWork(const UtilProgram &util);

} // namespace zbddc
