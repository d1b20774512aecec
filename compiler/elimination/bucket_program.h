// Lowers a cost network and an elimination order into a TensorProgram: one op per non-empty
// bucket (Bistaffa et al. 2016 Alg. 1; Fioretto et al. 2015's fused aggregate-project, or join then
// marginalise when `fuseBuckets` is off), evidence slicing first, and every table laid out so that
// variables eliminated later are more significant (Bistaffa et al. 2017 §III-A: the variable a
// bucket eliminates is then the fastest-varying one in the tables it reads, so its group of rows is
// contiguous).
#pragma once

#include "compiler/frontends/wcsp/cost_network.h"
#include "ir/tensor_program.h"

#include <vector>

namespace zbddc {

struct BucketProgramOptions {
    bool fuseBuckets = true;
    std::vector<uint32_t> evidence; // empty, or one entry per variable: a value or UINT32_MAX
};

// The input table of a cost function, its rows transposed into `scope` (a permutation of the
// function's scope) as layout order.
Table costFunctionTable(const CostFunction &f, const std::vector<uint32_t> &scope,
                        const std::vector<uint32_t> &domainSizes);
// The same, taking the function's costs where their layout is already `scope`'s (a DPOP message
// laid out as its receiver lays it out), else transposing them as above.
Table costFunctionTable(CostFunction &&f, const std::vector<uint32_t> &scope,
                        const std::vector<uint32_t> &domainSizes);

// `order` must be a permutation of the variables (checked). The program's semiring is MinSum.
Result<TensorProgram> buildBucketProgram(const CostNetwork &network,
                                         const std::vector<uint32_t> &order,
                                         const BucketProgramOptions &options = {});

} // namespace zbddc
