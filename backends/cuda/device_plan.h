// The flat arrays a generated kernel walks: a Circuit's levels turned into value slots, op ranges
// grouped by kind within each level (seed 003 §5: ops of one type together so a warp runs one
// branch), and for the backward pass each node's parents as a CSR list (a gather, not atomics).
#pragma once

#include "ir/circuit.h"

#include <cstdint>
#include <vector>

namespace zbddc::cuda {

// The op kinds a level is grouped by, in this order.
enum class GroupKind : uint8_t { Plus, Times, MulAdd };
inline constexpr int kGroupKinds = 3;

struct DevicePlan {
    uint32_t numInputs = 0;   // slots [0, numInputs) hold x
    uint32_t numConstants = 0; // slots [numInputs, numInputs + numConstants): Zero/One/Const nodes
    uint32_t numSlots = 0;    // all slots, op results included
    uint32_t numLevels = 0;   // levels of computed ops (leaves are not a level)

    std::vector<uint32_t> nodeSlot;     // per node; valid only while the node is live if reused
    std::vector<double> constantValues; // per constant slot, linear (Zero/One as the semiring's)

    // Ops in level order, grouped by GroupKind inside each level.
    std::vector<uint32_t> opDst, opA, opB, opC; // slots; opC unused (0) unless MulAdd
    std::vector<NodeId> opNode;                 // the circuit node each op computes
    // Op range of (level L, kind k): [groupStart[3L+k], groupStart[3L+k+1]).
    std::vector<uint32_t> groupStart;
    std::vector<uint32_t> levelWidth; // ops per level

    // Backward gather (only without slot reuse): items are the ops (in op order), then the inputs.
    // Item i's adjoint is the ⊕ over its edges [edgeStart[i], edgeStart[i+1]) of
    // adj[edgeParent] ⊗ value[edgeMul] (or adj[edgeParent] alone when edgeMul == kNoMul).
    std::vector<uint32_t> edgeStart, edgeParent, edgeMul;
    static constexpr uint32_t kNoMul = 0xffffffffu;
    bool reusesSlots = false;

    uint32_t numOps() const { return static_cast<uint32_t>(opDst.size()); }
};

// ASAP level of every node: leaves 0, an op one more than its deepest operand.
std::vector<uint32_t> asapLevels(const Circuit &circuit);

// Builds the plan from a level per node (leaves must be 0 and every op above its operands;
// `verify`-clean circuit). With `reuseSlots`, an op's slot is recycled once every reader's level
// has run (liveness), which shrinks memory for forward-only batches; the backward arrays are then
// left empty, since the backward pass needs every forward value.
DevicePlan buildDevicePlan(const Circuit &circuit, const std::vector<uint32_t> &level,
                           bool reuseSlots);

} // namespace zbddc::cuda
