// Which states of each network variable occur in some term of its MLF.
#pragma once

#include "compiler/frontends/bn/bayes_net.h"

#include <vector>

namespace zbddc {

// States that occur in some term of the MLF, found parents first: x is possible for X when some
// CPT row of X whose parent states are all possible gives it a nonzero parameter. Every other
// state's λ occurs in no term (a zero parameter removes each term that would hold it), so the
// CPT families may leave those entries out from the start. Without this, a deterministic root
// (water's time slice 00) constrains the product only once its own family is multiplied, and
// the products before that are orders of magnitude larger than the result.
// Result: [variable][state] = 1 when possible. Both the compilation (mlf_compile.cpp) and the
// order's size model (mlf_frontier.cpp, which counts a variable's possible states) use it.
std::vector<std::vector<char>> possibleStates(const BayesNet &net);

} // namespace zbddc
