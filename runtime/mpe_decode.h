// MPE assignments from backends without a traceback (the LLVM JIT, a model.so), on that backend
// alone. In max-product the adjoint of indicator λ(v=s) is the max-marginal max_{x: v=s} P(x, e)
// (Darwiche's differential semantics with max for sum). Where one state alone reaches the MPE
// value it is the state of every MPE; ties are broken by fixing one tied variable as evidence
// and asking again, so at most 1 + (number of tied variables) backward passes are needed.
#pragma once

#include "runtime/evidence.h"
#include "runtime/model.h"

namespace zbddc {

// `mpeValue` is the model's output 0 in max-product (natural log in Log mode). Returns a state per
// variable: evidence kept, kNone where no state of the variable lies on an optimal term.
Result<std::vector<uint32_t>> decodeMpe(Model &model, Numeric numeric, const Evidence &evidence,
                                        const std::vector<double> &freeInputs, double mpeValue);

} // namespace zbddc
