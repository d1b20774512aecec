// Tables beyond device memory (Bistaffa et al. 2017 §V-B2): a plan, made on the host before
// anything is allocated, that runs each op as a sequence of steps small enough for the device
// budget.
//
// A step computes one chunk of the op's output — a fixed prefix of the output's scope, so one
// contiguous row range — and, for each input containing some of the fixed variables, only the
// rows that chunk reads (Bistaffa et al. 2017 §III-A, Prop. 1 / Alg. 2: with the layout that puts
// the variables an input shares with the output most significant, in the output's order, that slice
// is itself one contiguous row range). Inputs containing none of the fixed variables stay resident
// for the whole op. When even one output row per step does not fit (a huge eliminated space), a
// step also fixes a prefix of the eliminated variables and the kernel ⊕-combines its partial result
// into the chunk's buffer (the kernels' elimination-range variant, tensor_kernels.h).
//
// Slices are computed for any layout: a step uploads the smallest row range that holds every row
// it reads; for the canonical layout of bucket programs (bucket_program.h) that range is exactly
// the matching slice, for another layout it is wider (still correct, costs memory) — see
// chunk_layout.h, which re-lays a program out on the host so that every range is exact.
#pragma once

#include "ir/result.h"
#include "ir/tensor_program.h"

#include <vector>

namespace zbddc {

struct ChunkPlanOptions {
    uint64_t budgetBytes = 0;   // device memory the executor may use for tables
    // Inputs this small are never sliced: the kernels stage them whole in shared memory.
    uint64_t wholeInputMaxEntries = 2048;
};

struct OpChunkPlan {
    uint32_t fixedVars = 0;     // leading output variables fixed per chunk (0: the whole table)
    uint64_t chunkRows = 0;     // rows per chunk: the product of the other variables' domains
    uint64_t chunks = 1;        // chunkRows * chunks == the output's rows
    uint32_t fixedElimVars = 0; // leading eliminated variables (op.vars order) fixed per step
    uint64_t elimValues = 1;    // joint eliminated values per step
    uint64_t elimSlices = 1;    // elimValues * elimSlices == the eliminated space
    std::vector<bool> inputSliced;      // per input: a row range per step, or resident whole
    std::vector<uint64_t> inputRows;    // per input: rows on the device (per step when sliced)
    uint64_t residentBytes = 0; // whole inputs, on the device for the whole op
    uint64_t stepBytes = 0;     // one step's input slices and output chunk
};

struct ChunkPlan {
    bool outOfCore = false;       // false: every table fits at once, no chunking needed
    std::vector<OpChunkPlan> ops; // by op id (filled only when outOfCore)
};

// Op `op`'s steps when they fix its first `outVars` output variables and first `elimVars`
// eliminated ones: what planChunks chooses among, and the slices a device
// of a multi-device run reads (multi_device_plan.h).
OpChunkPlan opChunkCandidate(const TensorProgram &program, uint32_t op, uint32_t outVars,
                             uint32_t elimVars, const ChunkPlanOptions &options = {});

Result<ChunkPlan> planChunks(const TensorProgram &program, const ChunkPlanOptions &options);

// The rows of input `input` (its position in op.inputs) that step (chunk, slice) reads:
// [first, first + plan.inputRows[input]); first is 0 for inputs resident whole.
struct RowRange {
    uint64_t first = 0;
    uint64_t rows = 0;
};
RowRange inputRange(const TensorProgram &program, uint32_t op, const OpChunkPlan &plan,
                    size_t input, uint64_t chunk, uint64_t slice);

} // namespace zbddc
