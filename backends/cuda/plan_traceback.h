// Max/min semirings: the inputs on one optimal term of an output of a compiled plan, from the
// forward values of its slots (one evaluation). A merged op's inner ⊕ and ⊗ have no slots: they
// are recomputed from the op's operands, and the walk follows the winning side of every ⊕ (ties
// to the first, as ir/interpret.h's circuit traceback) and both sides of every ⊗.
#pragma once

#include "backends/cuda/device_plan.h"
#include "ir/result.h"
#include "ir/semiring.h"

#include <span>
#include <vector>

namespace zbddc::cuda {

// `slotValue` holds every slot's value (the plan must keep every value: no slot reuse), in the
// semiring's own numbers, or natural logs for max-product with `logSpace`. Input indices, sorted,
// no duplicates.
Result<std::vector<uint32_t>> tracebackPlan(const DevicePlan &plan, Semiring semiring,
                                            bool logSpace, std::span<const double> slotValue,
                                            uint32_t outputSlot);

} // namespace zbddc::cuda
