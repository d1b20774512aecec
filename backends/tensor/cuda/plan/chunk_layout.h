// The layout preprocessing that makes every out-of-core step's input range exactly its slice
// (Bistaffa et al. 2017 §III-A, Prop. 1 / Alg. 2): each input of an op gets, most significant
// first, a slice op's evidence variables, then the variables it shares with the op's output in the
// output's order, then the op's eliminated variables in the op's order. Fixing a prefix of the
// output (and of the eliminated variables) then fixes a prefix of every input, one contiguous row
// range.
//
// Done on the host, once, before the kernels are generated (their strides are constants): data
// tables are transposed, computed tables only change the layout their producer writes. Bistaffa et
// al. 2017 reorder with a sequence of swaps on the device; a host transposition is simpler here
// because out-of-core tables live on the host anyway. Bucket programs (bucket_program.h) without
// evidence already have this layout (needsRelayout is false); with evidence, only the input
// tables of their slice ops move (small cost functions).
// A table read by several ops takes the layout its last reader wants; the others get the wider
// (still correct) ranges of chunk_plan.h.
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
