#include "backends/cuda/device_plan.h"

#include "ir/circuit.h" // kNone

#include <algorithm>

namespace zbddc::cuda {

uint32_t DevicePlan::arity(uint32_t t) const {
    return leafCount(typeCode[t]);
}

Result<DevicePlan> buildDevicePlan(const Schedule &s) {
    if (Status st = verify(s); !st)
        return st.error();
    DevicePlan p;
    for (uint32_t t = 0; t < s.numTypes(); ++t) {
        const std::span<const uint32_t> code = s.typeTemplate(t);
        p.typeCode.emplace_back(code.begin(), code.end());
        p.typeName.push_back(s.typeName[t]);
    }
    const SemiringOps ring{s.semiring};
    p.numSlots = s.numSlots;
    p.constantBase = 0;
    p.constantValues = {ring.zero(), ring.one()}; // kSlotZero, kSlotOne
    p.constantValues.insert(p.constantValues.end(), s.constants.begin(), s.constants.end());
    p.inputBase = s.inputBase();
    p.numInputs = s.numInputs;
    p.firstComputedSlot = s.computedBase();
    p.outputSlots = s.outputs;
    p.opType = s.opType;
    p.opOut = s.opOut;
    p.opOperandBegin = s.opOperandBegin;
    p.operands = s.operands;
    p.levelGroupBegin = s.levelGroupBegin;
    p.groupOpBegin = s.groupOpBegin;
    p.groupType = s.groupType;
    p.levelPhase = s.levelPhase;
    for (uint32_t L = 0; L < s.numLevels(); ++L)
        if (const auto phase = static_cast<Phase>(s.levelPhase[L]);
            phase != Phase::Grid && phase != Phase::SingleBlock)
            return error("schedule level " + std::to_string(L) + " runs in phase " +
                         phaseName(phase) +
                         "; the CUDA backend runs device phases only "
                         "(build the schedule with cudaPipelineOptions)");
    if (s.levelBlockBegin.size() != size_t{s.numLevels()} + 1)
        return error("schedule has no blocks (the partition pass did not run)");
    p.levelBlockBegin = s.levelBlockBegin;
    p.blockOpBegin = s.blockOpBegin;
    p.blockLoadBegin = s.blockLoadBegin;
    p.blockLoads = s.blockLoads;
    // The backward pass and the traceback read every operand from its slot: a preloaded block's
    // x operands (tile offsets) name their slot through the block's load list.
    p.slotOperands = s.operands;
    for (uint32_t b = 0; b < s.numBlocks(); ++b) {
        p.maxTileLoads = std::max(p.maxTileLoads, s.blockLoadBegin[b + 1] - s.blockLoadBegin[b]);
        if (!s.blockPreloads(b))
            continue;
        const uint32_t *loads = s.blockLoads.data() + s.blockLoadBegin[b];
        for (uint32_t i = s.blockOpBegin[b]; i < s.blockOpBegin[b + 1]; ++i)
            forEachLeaf(s, i, [&](TemplateStep step, uint32_t k) {
                if (step == TemplateStep::LoadX)
                    p.slotOperands[k] = loads[s.operands[k]];
            });
    }
    std::vector<uint8_t> written(p.numSlots, 0);
    for (uint32_t slot : p.opOut)
        if (written[slot]++) {
            p.reusesSlots = true;
            break;
        }
    if (!p.reusesSlots)
        if (Status st = addBackwardEdges(p); !st)
            return st.error();
    return p;
}

Status addBackwardEdges(DevicePlan &p) {
    const uint32_t numOps = p.numOps(), numItems = numOps + p.numInputs;
    std::vector<uint32_t> itemOfSlot(p.numSlots, kNone);
    for (uint32_t i = 0; i < p.numInputs; ++i)
        itemOfSlot[p.inputBase + i] = numOps + i;
    for (uint32_t k = 0; k < numOps; ++k) {
        if (itemOfSlot[p.opOut[k]] != kNone)
            return error("slot " + std::to_string(p.opOut[k]) +
                         " is written twice: the backward pass needs every value kept");
        itemOfSlot[p.opOut[k]] = k;
    }
    // Each operand position is its own edge (x·x reads x twice, and the reference counts both).
    // Edges are listed in op order, so each item's list, and its ⊕ order, is deterministic.
    p.edgeStart.assign(numItems + 1, 0);
    for (uint32_t slot : p.slotOperands)
        if (itemOfSlot[slot] != kNone)
            ++p.edgeStart[itemOfSlot[slot] + 1];
    for (size_t i = 1; i < p.edgeStart.size(); ++i)
        p.edgeStart[i] += p.edgeStart[i - 1];
    p.edgeOp.assign(p.edgeStart.back(), 0);
    p.edgePos.assign(p.edgeStart.back(), 0);
    std::vector<uint32_t> next(p.edgeStart.begin(), p.edgeStart.end() - 1);
    for (uint32_t k = 0; k < numOps; ++k)
        for (uint32_t j = p.opOperandBegin[k]; j < p.opOperandBegin[k + 1]; ++j)
            if (const uint32_t item = itemOfSlot[p.slotOperands[j]]; item != kNone) {
                p.edgeOp[next[item]] = k;
                p.edgePos[next[item]++] = j - p.opOperandBegin[k];
            }
    return Ok{};
}

namespace {

// Edges [e0, e1) in consecutive pieces of at most `size`, each appended as its (begin, end).
void appendPieces(std::vector<uint32_t> &edges, uint32_t e0, uint32_t e1, uint32_t size) {
    for (uint32_t e = e0; e < e1; e += size) {
        edges.push_back(e);
        edges.push_back(std::min(e1, e + size));
    }
}

} // namespace

InputPieces inputPieces(const DevicePlan &p, std::vector<uint32_t> inputs) {
    InputPieces q;
    q.inputs = std::move(inputs);
    q.pieceBegin.push_back(0);
    for (uint32_t i : q.inputs) {
        appendPieces(q.edges, p.edgeStart[p.numOps() + i], p.edgeStart[p.numOps() + i + 1],
                     kEdgesPerPiece);
        q.pieceBegin.push_back(q.numPieces());
    }
    return q;
}

InputPieces allInputPieces(const DevicePlan &p) {
    std::vector<uint32_t> all(p.numInputs);
    for (uint32_t i = 0; i < p.numInputs; ++i)
        all[i] = i;
    return inputPieces(p, std::move(all));
}

OpPieces opPieces(const DevicePlan &p) {
    OpPieces q;
    for (uint32_t L = 0; L < p.numLevels(); ++L) {
        const uint32_t k0 = p.groupOpBegin[p.levelGroupBegin[L]];
        const uint32_t k1 = p.groupOpBegin[p.levelGroupBegin[L + 1]];
        for (uint32_t k = k0; k < k1 && !p.edgeStart.empty(); ++k) {
            const uint32_t e0 = p.edgeStart[k], e1 = p.edgeStart[k + 1];
            if (e1 - e0 <= kOpEdgesPerPiece)
                continue;
            q.splitOp.push_back(k);
            appendPieces(q.edges, e0, e1, kOpEdgesPerPiece);
            q.splitPieceBegin.push_back(q.numPieces());
        }
        q.levelPieceBegin.push_back(q.numPieces());
        q.levelSplitBegin.push_back(static_cast<uint32_t>(q.splitOp.size()));
    }
    return q;
}

} // namespace zbddc::cuda
