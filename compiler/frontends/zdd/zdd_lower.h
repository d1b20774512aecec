#pragma once

#include "compiler/frontends/zdd/zdd_model.h"
#include "ir/circuit.h"

namespace zbddc {

// Minato et al. 2011 §2: each ZBDD node (v, lo, hi) becomes f = f(hi)·x[v] + f(lo) (typeA, a
// MulAdd), or f(hi)·x[v] (typeB, a Times) when lo is the 0 terminal. One circuit op per ZBDD node;
// terminals become the semiring's Zero and One. The model must be well formed (as parseZdd
// guarantees).
Circuit lowerZdd(const ZddModel &model);

} // namespace zbddc
