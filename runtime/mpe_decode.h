// MPE assignments of a batch of cases from max-product adjoints, on any backend (runtime/model.h:
// the reference evaluator, the LLVM JIT or the data-driven loop, a model.so, CUDA). In max-product
// the adjoint of indicator λ(v=s) is the max-marginal max_{x: v=s} P(x, e) (Darwiche's
// differential semantics with max for sum). Where one state alone reaches the MPE value it is the
// state of every MPE. A case with ties fixes its first tied variable to a state that reaches the
// value, as evidence, and is asked again; every tied case of a round goes into one batched pass,
// so the passes number 1 + the most tie rounds of any case, not their sum over the cases.
#pragma once

#include "runtime/evidence.h"
#include "runtime/model.h"

#include <span>
#include <vector>

namespace zbddc {

struct MpeBatch {
    // A state per variable and case: evidence kept, kNone where no state of the variable lies on
    // an optimal term (the circuit does not depend on it there).
    std::vector<std::vector<uint32_t>> assignments;
    // Per case, whether another assignment may reach the optimum (TaskResult::mpeTied): a round
    // fixed a tied variable, or a variable was left undetermined. Where neither, each variable
    // had one state alone within the tolerance, so no other assignment reaches.
    std::vector<uint8_t> tied;
    uint32_t passes = 0; // batched adjoint passes
};

// `mpeValues[k]`: case k's output 0 in max-product (natural log in Log mode). A case of value 0
// has no optimal term: it is not decoded and keeps its evidence. `firstAdjoints`, where a pass
// already computed them (the batch's forward pass), are case k's max-product adjoints of its own
// evidence, of the indicators only (runtime/evidence.h's indicatorInputs) at k × their number:
// the first round then runs no pass of its own.
Result<MpeBatch> decodeMpe(Model &model, Numeric numeric, std::span<const Evidence> cases,
                           const std::vector<double> &freeInputs,
                           std::span<const double> mpeValues,
                           std::span<const double> firstAdjoints = {});

} // namespace zbddc
