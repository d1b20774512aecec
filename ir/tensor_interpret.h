// The reference interpreter of a TensorProgram: every op evaluated row by row straight from its
// definition, with no layout tricks, so it is obviously right; the oracle for the CPU and GPU
// executors. Slow (it decodes every row into a full assignment).
#pragma once

#include "ir/tensor_program.h"

#include <vector>

namespace zbddc {

// Complete values of every computed table (index = table id; input tables stay empty).
Result<std::vector<std::vector<double>>> interpretTensorProgram(const TensorProgram &program);

// ⊗ of the program's result tables.
double programResult(const TensorProgram &program,
                     const std::vector<std::vector<double>> &computed);

} // namespace zbddc
