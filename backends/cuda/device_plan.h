// The flat arrays a generated kernel walks: levels of ops, each level split into groups of one op
// type (Minato et al. 2011 §2, §5: ops of one type together, so a warp runs one branch), each op
// type a postfix template over its operands (ir/schedule.h's catalogue: typeA is "F X * F +"),
// value slots, and for the backward pass each slot's readers as a CSR list (a gather, not atomics).
// Built from a Schedule (the passes' merged ops) or directly from a Circuit (its Plus/Times/MulAdd
// as types).
#pragma once

#include "ir/circuit.h"
#include "ir/levels.h" // asapLevels, the usual `level` argument of buildDevicePlan
#include "ir/schedule.h"

#include <cstdint>
#include <string>
#include <vector>

namespace zbddc::cuda {

struct DevicePlan {
    // Type catalogue: type t's postfix template (TemplateStep values) and its name.
    std::vector<std::vector<uint32_t>> typeCode;
    std::vector<std::string> typeName;

    uint32_t numSlots = 0;
    uint32_t inputBase = 0, numInputs = 0;    // x[i] lives in slot inputBase + i
    uint32_t constantBase = 0;                // constantValues[k] lives in constantBase + k
    std::vector<double> constantValues;       // linear values; set once per model
    uint32_t firstComputedSlot = 0;           // slots from here on are written by ops
    std::vector<uint32_t> outputSlots;        // per circuit output
    std::vector<uint32_t> nodeSlot;           // Circuit plans only: per node (for traceback)

    // Ops in execution order (SoA).
    std::vector<uint32_t> opType, opOut, opOperandBegin{0}, operands;
    // Levels → groups of one type → ops.
    std::vector<uint32_t> levelGroupBegin{0}, groupOpBegin{0}, groupType;

    // Backward gather (empty when slots are reused): items are the ops (their result slots) in op
    // order, then the inputs. Item i's adjoint is the ⊕ over edges [edgeStart[i], edgeStart[i+1])
    // of adj[opOut[edgeOp]] ⊗ ∂(edgeOp's template)/∂(operand edgePos).
    std::vector<uint32_t> edgeStart, edgeOp, edgePos;
    bool reusesSlots = false;

    uint32_t numOps() const { return static_cast<uint32_t>(opType.size()); }
    uint32_t numLevels() const { return static_cast<uint32_t>(levelGroupBegin.size()) - 1; }
    uint32_t levelWidth(uint32_t L) const {
        return groupOpBegin[levelGroupBegin[L + 1]] - groupOpBegin[levelGroupBegin[L]];
    }
    uint32_t arity(uint32_t t) const; // operand count of type t
};

// From a Circuit and a level per node (leaves 0, every op above its operands; `verify`-clean).
// Types: 0 Plus "F F +", 1 Times "F F *", 2 MulAdd "F F * F +". With `reuseSlots`, an op's slot
// is recycled once every reader's level has run (liveness); no backward arrays then.
DevicePlan buildDevicePlan(const Circuit &circuit, const std::vector<uint32_t> &level,
                           bool reuseSlots);

// From a Schedule (its levels, groups, merged types and slots). Shared-memory preloads are undone
// (LoadX operands mapped back to slots). Backward arrays are built when no slot is written twice.
Result<DevicePlan> buildDevicePlan(const Schedule &schedule);

// The backward gather lists of a plan whose every computed slot is written once.
Status addBackwardEdges(DevicePlan &plan);

} // namespace zbddc::cuda
