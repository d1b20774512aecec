// Generic tensor kernels: one kernel for every small op of one family (thread or warp per row,
// ⊕ or InverseMax, inputs, output rank, eliminated variables), the op's domains, strides and slice
// offsets passed at launch as "shape words". Specialised kernels (tensor_kernels.h) never share
// text across shapes, and NVRTC's time grows with the kernels (munin: a thousand shapes, most of
// them small ops whose run is a launch). The arithmetic is the specialised kernel's in 32 bits
// (tables under 2^31 entries), each division a multiply-high, add and shift (genericDivider); no
// shared-memory staging, row groups or elimination ranges.
#pragma once

#include "backends/tensor/cuda/codegen/tensor_kernels.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace zbddc::cuda {

// Whether op `op` runs its family's generic kernel: at most options.genericMaxWork entries walked
// (0 turns generics off), no row group, no elimination range, tables under 2^31 entries.
bool usesGenericKernel(const TensorProgram &program, uint32_t op,
                       const TensorKernelOptions &options);

// The prelude's part for generic kernels: the by-value shape argument's type.
std::string genericKernelPrelude();

// The generic kernel of op `op`'s family, named `name`: the specialised signature plus a last
// argument `zb_shape<N> shape` (genericKernelShape's words). With options.fusedEntries, `name` +
// kFusedKernelSuffix beside it runs a level's small ops of the family in one launch, op blockIdx.y
// of its array of fused op descriptors.
inline constexpr const char *kFusedKernelSuffix = "_fused";
std::string genericKernelText(const TensorProgram &program, uint32_t op,
                              const TensorKernelOptions &options, std::string_view name);

// Op `op`'s family as one number (for an op that usesGenericKernel): ops of equal keys have equal
// genericKernelText under the same options, so a program's thousands of small ops are given
// their kernels by key, not by generating and comparing a text each.
uint64_t genericFamilyKey(const TensorProgram &program, uint32_t op,
                          const TensorKernelOptions &options);

// An op's entry in a fused launch's array, laid out as the device reads it (zb_fused_op<N>: its
// input list's address, its output's, its rows and its shape words), padded to 8 bytes.
void appendFusedOpDescriptor(std::vector<unsigned char> &to, uint64_t inputs, uint64_t out,
                             uint64_t rows, std::span<const uint32_t> shape);

// n / d in a generic kernel: (high word of n * mul, plus n) shifted right (Granlund and
// Montgomery 1994), exact for n < 2^31 and every d >= 1.
struct GenericDivider {
    uint32_t mul = 0, shift = 0;
};
GenericDivider genericDivider(uint32_t d);

// Op `op`'s shape words: the output's and eliminated variables' domains (each with its divider's
// two words), per input its base offset and its strides along each output and eliminated variable
// (0 where it lacks it), and last the eliminated space's size.
std::vector<uint32_t> genericKernelShape(const TensorProgram &program, uint32_t op);

} // namespace zbddc::cuda
