// Generic tensor kernels: one compiled kernel for every small op of one family — (thread or warp
// per row, ⊕ or InverseMax, number of inputs, output rank, eliminated variables) within a module,
// whose semiring and precision are the module's prelude — with the op's domain sizes, strides and
// slice offsets passed at launch as a by-value argument (its "shape words") instead of baked into
// the text as constants.
//
// Why: a specialised kernel (tensor_kernels.h) has constant divisors and strides, so ops of
// different shapes never share text, and NVRTC's time grows with the kernels it compiles (munin's
// junction tree: a thousand shapes); most of those ops are small, their run a launch
// (kGenericMaxWork's figures).
//
// The arithmetic is the specialised thread-per-row / warp-per-row kernel's, in 32 bits: only ops
// whose tables all have fewer than 2^31 entries are generic, and each division by a domain size is
// a multiply-high, an add and a shift by words computed on the host (genericDivider). No
// shared-memory staging (a small op's block reuses little), no row groups (those are for ops of
// 2^20 rows and more), no elimination ranges (the out-of-core path keeps specialised kernels).
#pragma once

#include "backends/tensor/cuda/codegen/tensor_kernels.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace zbddc::cuda {

// Whether op `op` runs its family's generic kernel: at most options.genericMaxWork entries walked
// (kGenericMaxWork: tensor_kernels.h; 0 turns generics off), no row group, no elimination range,
// tables of fewer than 2^31 entries.
bool usesGenericKernel(const TensorProgram &program, uint32_t op,
                       const TensorKernelOptions &options);

// The prelude's part for generic kernels: the by-value shape argument's type.
std::string genericKernelPrelude();

// The generic kernel of op `op`'s family, named `name`: the specialised signature plus a last
// argument `zb_shape<N> shape` (genericKernelShape's words). Ops of one family give the same text.
// Beside it, with options.fusedEntries, `name` + kFusedKernelSuffix runs several ops of the family
// in one launch, op blockIdx.y of its one argument, an array of fusedOpDescriptor's: the small ops
// of one level, which would otherwise cost a launch each (grid-81 and SPOT5 404 have 60-90 ops of
// under 10^5 entries).
inline constexpr const char *kFusedKernelSuffix = "_fused";
std::string genericKernelText(const TensorProgram &program, uint32_t op,
                              const TensorKernelOptions &options, std::string_view name);

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

// Op `op`'s shape words, in the order its generic kernel reads them: the output's domains (scope
// order), the eliminated variables' domains (op.vars order), each as its size and its divider's
// two words, then per input its base offset (a slice's fixed values), its stride along each output
// variable and along each eliminated one (0 where it lacks the variable), and last the eliminated
// space's size.
std::vector<uint32_t> genericKernelShape(const TensorProgram &program, uint32_t op);

} // namespace zbddc::cuda
