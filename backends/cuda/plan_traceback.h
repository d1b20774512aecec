// Max/min semirings: the inputs on one optimal term of an output of a compiled plan, from the
// forward values of its slots (one evaluation). A merged op's inner ⊕ and ⊗ have no slots: they
// are recomputed from the op's operands, and the walk follows the winning side of every ⊕ (ties
// to the first) and both sides of every ⊗: the walk of ir/optimal_term.h.
#pragma once

#include "backends/cuda/device_plan.h"
#include "ir/circuit.h"
#include "ir/result.h"
#include "ir/traced_terms.h"
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

// The device's batched traceback (traceback_kernel.inc): one lane per case walks the same way
// from a forward pass's slots, and writes each indicator it meets as its variable's state.
// kTraceSteps bounds a template's nodes and the ops pending on a lane's walk (ZB_TRACE_STEPS).
inline constexpr uint32_t kTraceSteps = 64;
// Per lane, as the kernel reports it: traced, or why the walk stopped (the host decodes those
// cases another way).
enum class TraceStatus : uint32_t {
    Traced = 0,     // and no ⊕ on the walk had its other side within the tie tolerance
    TooLong = 1,    // more steps than the plan has ops: a term that repeats shared ops
    TooDeep = 2,    // more than kTraceSteps ops pending at once
    Clash = 3,      // two states of one variable on the term
    TooWide = 4,    // a template of more than kTraceSteps nodes
    TracedTied = 5, // traced, and some ⊕ on the walk had its other side within the tie tolerance
};
// Whether the lane's walk found its term (tied or not).
inline bool walkEnded(uint32_t status) {
    return status == uint32_t(TraceStatus::Traced) || status == uint32_t(TraceStatus::TracedTied);
}
const char *traceStatusText(uint32_t status);

// What the kernel reads besides the plan's own arrays: the op that writes each computed slot,
// the templates flattened, and each input's (variable, state) where it is an indicator.
struct TracebackArrays {
    std::vector<uint32_t> producer;        // per slot from plan.firstComputedSlot
    std::vector<uint32_t> codeBegin, code; // type t's template: code[codeBegin[t], [t + 1])
    std::vector<uint32_t> indicator;       // indicatorStates (ir/traced_terms.h) of the inputs
    uint32_t maxSteps = 0;                 // ops one walk may visit
};
// `inputs`: the circuit's, in the plan's input order.
Result<TracebackArrays> tracebackArrays(const DevicePlan &plan, std::span<const InputInfo> inputs);

} // namespace zbddc::cuda
