// A host model of the out-of-core executor: runs a ChunkPlan step by step exactly as the GPU path
// does — each step sees only the row ranges inputRange gives (copied into buffers of their own,
// every read bounds-checked) and computes its output rows and eliminated values with the
// kernels' closed-form indexing (Bistaffa et al. 2016 Alg. 3), partial ⊕ results combined into the
// chunk. It exists so that the slicing logic is checked on every machine against the reference
// interpreter (tests/backends/tensor/cuda/chunk_plan_test.cpp); the GPU executor shares
// inputRange with it.
#pragma once

#include "backends/tensor/cuda/plan/chunk_plan.h"

#include <vector>

namespace zbddc {

// Same result layout as interpretTensorProgram. An error names the op and step when a step
// reads outside the rows it was given (a slicing bug), never a wrong number.
Result<std::vector<std::vector<double>>> runChunkPlanOnHost(const TensorProgram &program,
                                                            const ChunkPlan &plan);

} // namespace zbddc
