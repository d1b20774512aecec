// Tables beyond device memory (seed 002 §V): a plan, made on the host before anything is
// allocated, that splits each op's output table into chunks along its most significant variables
// (a chunk fixes a prefix of the output's scope, so it is one contiguous row range) and chooses
// how many chunks are in flight at once from the memory budget, so that the executor can overlap
// one chunk's kernel with the previous chunk's copy back to the host on another stream.
//
// Limitation (said, not hidden): an op's inputs are resident whole while it runs; an op whose
// inputs alone exceed the budget is refused with a message (chunking inputs along the variables
// they share with the output, seed 002 Prop. 1, is not implemented).
#pragma once

#include "ir/result.h"
#include "ir/tensor_program.h"

#include <vector>

namespace zbddc {

struct OpChunkPlan {
    uint32_t fixedVars = 0;     // leading output variables fixed per chunk (0: the whole table)
    uint64_t chunkRows = 0;     // rows per chunk: the product of the other variables' domains
    uint64_t chunks = 1;        // chunkRows * chunks == the output's rows
    uint32_t inFlight = 1;      // chunk buffers (and streams) used at once
    uint64_t inputBytes = 0;    // the op's inputs, resident while it runs
};

struct ChunkPlan {
    bool outOfCore = false;     // false: every table fits at once, no chunking needed
    uint64_t budgetBytes = 0;
    std::vector<OpChunkPlan> ops; // by op id (filled only when outOfCore)
};

// `budgetBytes`: device memory the executor may use for tables; `maxInFlight` ≥ 1.
Result<ChunkPlan> planChunks(const TensorProgram &program, uint64_t budgetBytes,
                             uint32_t maxInFlight = 4);

} // namespace zbddc
