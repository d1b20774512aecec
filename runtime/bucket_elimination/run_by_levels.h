// Runs a TensorProgram one level at a time, each level a program of its own whose inputs are the
// tables earlier levels computed, freeing every computed table once its last reader has run.
// InverseMax ops run here on the host instead: the out-of-core path splits reductions into
// ⊕-combined parts, which a reciprocal does not survive (tensor_gpu.cpp refuses it), so a
// rescaled sum-product program (compiler/elimination/partition_program.h) reaches that path as
// plain ⊕/⊗ levels. Only scalars and the tables nothing reads are returned; every other table
// comes back empty.
#pragma once

#include "ir/tensor_program.h"
#include "runtime/tensor/tensor_executor.h"

#include <functional>
#include <vector>

namespace zbddc {

using RunTensorProgram = std::function<Result<CompleteTables>(const TensorProgram &)>;

Result<CompleteTables> runByLevels(const TensorProgram &program, const RunTensorProgram &run);

} // namespace zbddc
