// Compiles a Bayesian network into its multi-linear function (MLF) as a ZBDD, the way Minato,
// Satoh and Sato (IJCAI 2007) do it and seed 003 evaluates it: every term of
//   f = Σ_x Π_v λ_{v=x_v} θ_{x_v | x_pa(v)}
// is the set of its indicator and parameter variables.
#pragma once

#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/frontends/zdd/zdd_model.h"
#include "compiler/mlf/mlf_order.h"

#include <cstddef>

namespace zbddc {

struct MlfOptions {
    MlfOrdering ordering = MlfOrdering::MinFill;
    size_t nodeLimit = size_t{1} << 26; // ZBDD arena size (about 40 bytes a node); beyond: error
};

struct MlfStats {
    size_t zbddVars = 0;   // indicators + distinct parameters
    size_t indicators = 0;
    size_t parameters = 0;
    size_t nodes = 0;      // nodes of the final ZBDD
    size_t peakNodes = 0;  // largest arena during compilation
    double terms = 0;      // sets in the final ZBDD (consistent terms with nonzero parameters)
};

// ZBDD variable v is circuit input x[v]: vars[v] says whether it is an indicator (variable index
// into `variables`, which keeps the network's file order, and state) or a parameter (its value).
// Nodes are listed children first; one root named "pr".
Result<ZddModel> compileMlf(const BayesNet &net, const MlfOptions &options = {},
                            MlfStats *stats = nullptr);

} // namespace zbddc
