// Tables beyond device memory (Bistaffa et al. 2017 §V-B2): each op run as steps small enough for
// the device budget, planned on the host before anything is allocated. A step computes one chunk
// of the output (a fixed prefix of its scope: one row range) from the rows of each input that the
// chunk reads (§III-A, Prop. 1 / Alg. 2: one row range where the shared variables lead); inputs
// with none of the fixed variables stay resident. Where one output row per step does not fit, a
// step also fixes a prefix of the eliminated variables and the kernel ⊕-combines its partial
// result (eliminationRange, tensor_kernels.h). A step uploads the smallest range holding every row
// it reads: exact for bucket programs' layout, wider otherwise (chunk_layout.h re-lays it out).
#pragma once

#include "backends/tensor/devices/tensor_device.h"
#include "ir/result.h"
#include "ir/tensor_program.h"

#include <vector>

namespace zbddc {

struct ChunkPlanOptions {
    uint64_t budgetBytes = 0; // device memory the executor may use for tables
    // Inputs this small are never sliced: the kernels stage them whole in shared memory.
    uint64_t wholeInputMaxEntries = 2048;
};

struct OpChunkPlan {
    uint32_t fixedVars = 0;        // leading output variables fixed per chunk (0: the whole table)
    uint64_t chunkRows = 0;        // rows per chunk: the product of the other variables' domains
    uint64_t chunks = 1;           // chunkRows * chunks == the output's rows
    uint32_t fixedElimVars = 0;    // leading eliminated variables (op.vars order) fixed per step
    uint64_t elimValues = 1;       // joint eliminated values per step
    uint64_t elimSlices = 1;       // elimValues * elimSlices == the eliminated space
    std::vector<bool> inputSliced; // per input: a row range per step, or resident whole
    std::vector<uint64_t> inputRows; // per input: rows on the device (per step when sliced)
    uint64_t residentBytes = 0;      // whole inputs, on the device for the whole op
    uint64_t stepBytes = 0;          // one step's input slices and output chunk
};

struct ChunkPlan {
    bool outOfCore = false;       // false: every table fits at once, no chunking needed
    std::vector<OpChunkPlan> ops; // by op id (filled only when outOfCore)
};

// Op `op`'s steps fixing its first `outVars` output and `elimVars` eliminated variables: what
// planChunks chooses among, and the slices of a multi-device run.
OpChunkPlan opChunkCandidate(const TensorProgram &program, uint32_t op, uint32_t outVars,
                             uint32_t elimVars, const ChunkPlanOptions &options = {});

Result<ChunkPlan> planChunks(const TensorProgram &program, const ChunkPlanOptions &options);

// The rows of input `input` (its position in op.inputs) that step (chunk, slice) reads:
// plan.inputRows[input] of them, from 0 for inputs resident whole.
RowSpan inputRange(const TensorProgram &program, uint32_t op, const OpChunkPlan &plan, size_t input,
                   uint64_t chunk, uint64_t slice);

} // namespace zbddc
