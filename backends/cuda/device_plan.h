// The flat arrays a generated kernel walks, taken from the passes' Schedule as they left it:
// levels of merged ops and the phase each runs in (one block or the grid), each level's blocks
// (the work of one thread block, inside one group of one op type: Minato et al. 2011 §2, §5, so
// a warp runs one branch) with the x operands a block reads from shared memory (its preloaded
// tile), each op type a postfix template over its operands (ir/schedule.h's catalogue: typeA is
// "F X * F +"), value slots, and for the backward pass each slot's readers as a CSR list (a
// gather, not atomics).
#pragma once

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
    uint32_t inputBase = 0, numInputs = 0; // x[i] lives in slot inputBase + i
    uint32_t constantBase = 0;             // constantValues[k] lives in constantBase + k
    std::vector<double> constantValues;    // linear values; set once per model
    uint32_t firstComputedSlot = 0;        // slots from here on are written by ops
    std::vector<uint32_t> outputSlots;     // per circuit output

    // Ops in execution order (SoA). `operands` as the forward pass reads them: a preloaded
    // block's x operands are offsets into its tile; `slotOperands` are every operand's slot (what
    // the backward pass and the traceback read).
    std::vector<uint32_t> opType, opOut, opOperandBegin{0}, operands, slotOperands;
    // Levels → groups of one type → ops; the phase each level runs in (Phase::Grid or
    // Phase::SingleBlock).
    std::vector<uint32_t> levelGroupBegin{0}, groupOpBegin{0}, groupType, levelPhase;
    // Levels → blocks → ops; block b first copies slots blockLoads[blockLoadBegin[b], [b+1]) to
    // shared memory (every lane) when that range is not empty.
    std::vector<uint32_t> levelBlockBegin{0}, blockOpBegin{0}, blockLoadBegin{0}, blockLoads;
    uint32_t maxTileLoads = 0; // the most slots one block preloads

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

// From a Schedule whose every level runs on the device (Phase::Grid or Phase::SingleBlock:
// cudaPipelineOptions builds one). Backward arrays are built when no slot is written twice.
Result<DevicePlan> buildDevicePlan(const Schedule &schedule);

// The backward gather lists of a plan whose every computed slot is written once.
Status addBackwardEdges(DevicePlan &plan);

// The inputs' backward step in pieces. An indicator is read by thousands of ops (hailfinder:
// 4,137 of its 137,854 edges go to one), and a lane gathering them one after another is the whole
// backward pass's critical path; so each input's edges are cut into pieces of at most
// kEdgesPerPiece, each piece's ⊕ goes to its own partial row, and a second step ⊕s each input's
// partials in order (deterministic, no atomics). `inputs` (ascending) are the inputs whose
// adjoints are wanted: every input, or only those a batch varies (an evidence batch's indicators).
inline constexpr uint32_t kEdgesPerPiece = 32;
struct InputPieces {
    std::vector<uint32_t> inputs;     // input indices
    std::vector<uint32_t> pieceBegin; // input j's pieces are [pieceBegin[j], pieceBegin[j + 1])
    std::vector<uint32_t> edges;      // piece q's edges are [edges[2q], edges[2q + 1])
    uint32_t numPieces() const { return static_cast<uint32_t>(edges.size() / 2); }
};
InputPieces inputPieces(const DevicePlan &plan, std::vector<uint32_t> inputs);
InputPieces allInputPieces(const DevicePlan &plan);

// The levels' backward gathers in pieces, for the single-launch kernel (single_launch.h), whose
// block walks a level's ops one lane at a time: an op read by more than kOpEdgesPerPiece edges
// (merged ops read one slot up to hundreds of times: 4-grid 138, seq_fun 234) made its thread's
// walk the level's critical path, a chain of loads per edge. Its edges are cut into pieces of at
// most kOpEdgesPerPiece, each piece's ⊕ into its own partial row, and after the level's barrier
// the op's partials are ⊕ed in order into its adjoint (fixed order, no atomics).
inline constexpr uint32_t kOpEdgesPerPiece = 8;
struct OpPieces {
    std::vector<uint32_t> levelPieceBegin{0}; // level L's pieces: [levelPieceBegin[L], [L + 1])
    std::vector<uint32_t> edges;              // piece q's edges: [edges[2q], edges[2q + 1])
    std::vector<uint32_t> levelSplitBegin{0}; // level L's split ops: [levelSplitBegin[L], [L + 1])
    std::vector<uint32_t> splitOp;            // split op s's index
    std::vector<uint32_t> splitPieceBegin{0}; // its pieces: [splitPieceBegin[s], [s + 1])
    uint32_t numPieces() const { return static_cast<uint32_t>(edges.size() / 2); }
};
// Every level's ops with more than kOpEdgesPerPiece edges, in op order (a plan with edges).
OpPieces opPieces(const DevicePlan &plan);

} // namespace zbddc::cuda
