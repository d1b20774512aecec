// The layout that makes every out-of-core step's input range exactly its slice (Bistaffa et al.
// 2017 §III-A, Prop. 1 / Alg. 2): each input of an op gets, most significant first, a slice op's
// evidence variables, the variables it shares with the output in the output's order, then the
// eliminated ones in the op's order. Done on the host before the kernels are generated: data
// tables transposed (the paper swaps on the device; out-of-core tables live on the host anyway),
// computed tables written in the new layout. A table read by several ops takes its last reader's.
#pragma once

#include "ir/tensor_program.h"

#include <vector>

namespace zbddc {

bool needsRelayout(const TensorProgram &program);

// The program with every table in its chunk-friendly layout (data transposed).
TensorProgram relayoutForChunks(const TensorProgram &program);

// Values of a complete table laid out over `from` (a permutation of `to`), laid out over `to`.
std::vector<double> transposeTable(const std::vector<double> &values,
                                   const std::vector<uint32_t> &from,
                                   const std::vector<uint32_t> &to,
                                   const std::vector<uint32_t> &domainSizes);

// Computed tables of the relaid program (as an executor returns them) back into the original
// program's layouts, in place.
void restoreLayouts(const TensorProgram &original, const TensorProgram &relaid,
                    std::vector<std::vector<double>> &computed);

} // namespace zbddc
