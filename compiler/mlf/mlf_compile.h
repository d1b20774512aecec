// Compiles a Bayesian network into its multi-linear function (MLF) as a ZBDD, the way Minato,
// Satoh and Sato (IJCAI 2007) do it and Minato et al. 2011 evaluates it: every term of
//   f = Σ_x Π_v λ_{v=x_v} θ_{x_v | x_pa(v)}
// is the set of its indicator and parameter variables.
#pragma once

#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/frontends/zdd/zdd_model.h"
#include "compiler/mlf/mlf_order.h"

#include <cstddef>
#include <functional>

namespace zbddc {

// How the CPT families are multiplied together.
enum class MlfSchedule : uint8_t {
    Sequential, // into one running product, bottom of the order first
    Balanced,   // a balanced tree of products of neighbouring families (order's top first)
};

struct MlfOptions {
    MlfOrdering ordering = MlfOrdering::Frontier;
    size_t nodeLimit = size_t{1} << 26; // ZBDD arena size (about 40 bytes a node); beyond: error
    bool thetaAtBottom = false;         // all θ groups below all λ groups (for measurement)
    // If not empty: the BN-variable order `ordering` gives, computed before (mlfVariableOrder).
    std::vector<uint32_t> variableOrder;
    MlfSchedule schedule = MlfSchedule::Balanced;
    // Called after each CPT family is multiplied in (for benches and verbose output): its index
    // in the multiplication order, the number of CPTs, the BN variable, and the product's nodes.
    std::function<void(size_t index, size_t count, uint32_t variable, size_t productNodes)>
        progress;
    // The same moments without the product's size (counting its nodes costs a pass over it):
    // products done of those to do, for a progress line.
    std::function<void(size_t done, size_t count)> steps;
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
