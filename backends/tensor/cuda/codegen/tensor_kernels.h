// CUDA source for a TensorProgram: one kernel per op shape, domains and strides compile-time
// constants, so Bistaffa et al. 2016 Alg. 3's indexing compiles to multiplies and shifts. Each is
// the fused join-marginalise of Fioretto et al. 2015 §3.2: per output row, the ⊗ of the inputs'
// entries for each joint eliminated value, reduced with ⊕. Two variants:
//   thread-per-row  for small eliminated spaces (the common BE case: one variable, domain ≤ 16);
//   warp-per-row    a segmented reduction (Bistaffa et al. 2016 §3.2) over the eliminated space
//                   with warp shuffles, for large domains.
// Small inputs (the original cost functions) are staged in shared memory by each block, the
// groups every thread of the block reuses (Bistaffa et al. 2016 §3.1, Alg. 3's shared memory).
#pragma once

#include "ir/tensor_program.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace zbddc::cuda {

// Rows × eliminated values (the entries an op walks) up to which an op runs its family's generic
// kernel (generic_tensor_kernels.h): about four waves of an H100's resident threads, where an op's
// time is its launch. Ops under it are 85% of munin's ops but 0.65% of its entries, and NVRTC's
// time falls from 28.6 s to 12.6 s (bench/jt_kernels; bench/results/NOTEBOOK.md).
inline constexpr uint64_t kGenericMaxWork = uint64_t{1} << 20;

struct TensorKernelOptions {
    unsigned blockThreads = 256;
    unsigned warpRowThreshold = 32;    // eliminated spaces at least this large use warp-per-row
    // ... in ops of fewer rows than this: more rows fill the GPU with a thread each, whose loads
    // coalesce where the case varies fastest, where a warp's lanes read one row's eliminated
    // values far apart (a 2,000-case Promedus_12 op of 6.6e7 rows and 128 values a row: 449 ms,
    // 3.8 GB/s, on an H100). An H100 holds 2.7e5 threads at once.
    uint64_t warpRowMaxRows = uint64_t{1} << 18;
    unsigned sharedInputBytes = 32768; // budget for staging small inputs in shared memory
    unsigned sharedInputMaxEntries = 2048;
    // Kernels take (u64 elimBegin, u64 elimCount): only that range of the eliminated values is
    // reduced, ⊕-combined into out[r] unless elimBegin is 0 (out-of-core plans, chunk_plan.h).
    bool eliminationRange = false;
    // Row groups (rowGroupOf); false keeps a thread per row everywhere.
    bool rowGroups = true;
    unsigned rowGroupMaxSize = 8;  // a group variable's domain
    unsigned rowGroupMaxRows = 32; // the rows of a group (the product of its variables' domains)
    // A second group variable only for ops that write more than they read (rowGroupOf).
    bool rowGroupPairsWhenExpanding = true;
    uint64_t rowGroupMinRows = uint64_t{1} << 20;
    uint64_t rowGroupMinStride = 32; // a warp's threads write consecutive rows
    // Interleaved tiles (RowGroup::interleaved) where the inputs that lack an output variable
    // read at least this many bytes per value of it (a third of an H100's L2 cache: below it the
    // rows are still cached when read again), in tiles of at least this many groups.
    uint64_t interleaveMinBytes = uint64_t{16} << 20;
    uint64_t interleaveTileGroups = 1024;
    // Tables as 32-bit floats (zb_val) where narrow_costs.h proves every value exact.
    bool float32 = false;
    // Generic kernels get their fused entry point too (fused_launch.h): NVRTC time (pigs: 11.2 s
    // without, 13.8-15.8 s with) that runs which never fuse do not pay.
    bool fusedEntries = false;
    // Outputs of at least this many bytes are written with streaming stores: they cannot stay in
    // the L2 cache anyway (grid-81's largest join: 81.5 against 98.6 µs on an H200). 0: plain
    // stores; the GPU executors set the device's L2 size (op_launch.h).
    uint64_t streamingStoreMinBytes = 0;
    // Ops that walk at most this many entries share their family's generic kernel
    // (generic_tensor_kernels.h); 0: every op specialised.
    uint64_t genericMaxWork = kGenericMaxWork;
};

// Kernel signature: (const zb_val *const *inputs, zb_val *out, u64 rowBegin, u64 rowCount), `out`
// relative to rowBegin, plus (elimBegin, elimCount) with eliminationRange. Input j is read as
// inputs[j][offset] with whole-table offsets: a slice is passed as its address minus its first row.
// A module's source: the prelude (types, semiring functions), then each op's kernel under a name
// of the caller's; ops of one shape share a text, small ops of one family the generic one.
std::string tensorKernelPrelude(const TensorProgram &program, const TensorKernelOptions &options);
std::string tensorKernelText(const TensorProgram &program, uint32_t op,
                             const TensorKernelOptions &options, std::string_view name);

// Each op's kernel once per distinct text (named kTensorKernelPlaceholder, which the caller
// replaces): a junction tree's ops repeat a few shapes (munin: 4,945 ops, 1,008 kernels), and
// NVRTC's time grows with the kernels it compiles.
inline constexpr const char *kTensorKernelPlaceholder = "zb_kernel_";
struct TensorKernelSet {
    std::vector<std::string> texts; // in the order of first use
    std::vector<uint32_t> kernelOf; // by op: index into texts
    size_t genericKernels = 0;      // texts that are generic_tensor_kernels.h's
};
TensorKernelSet distinctTensorKernels(const TensorProgram &program,
                                      const TensorKernelOptions &options);

// The joint values of the variables `op` eliminates (1 where it eliminates none).
uint64_t eliminatedValues(const TensorProgram &program, const TensorOp &op);

// Whether op `op` is generated as warp-per-row (the host launches 32 threads per row).
bool usesWarpPerRow(const TensorProgram &program, uint32_t op, const TensorKernelOptions &options);

// A row group: the rows of an output that differ only in one or two output variables, computed
// by one thread, so inputs lacking a group variable are read and the row's digits decoded once for
// the group. Members are at least `stride` rows apart: consecutive threads write consecutive rows.
struct RowGroupVar {
    uint32_t var = 0;    // the variable's index in the output's scope
    uint32_t size = 1;   // its domain
    uint64_t stride = 1; // its stride in the output
};
struct RowGroup {
    RowGroupVar outer; // the more significant variable; size 1: a thread per row
    RowGroupVar inner; // a second, less significant variable, or size 1
    // An output variable besides the group's that a large input lacks (size 1: none): in row
    // order the groups stream that input once per value of it from DRAM, so consecutive threads
    // take a tile of tileGroups groups for each value in turn and reread it from the L2 cache.
    // Only whole periods of the variable (valueGroups × its domain) are reordered.
    RowGroupVar interleaved;
    uint64_t valueGroups = 1; // groups per value of it: the group index's digits below it
    uint64_t tileGroups = 1;  // a product of the domains of the group index's lowest digits
    uint32_t rows() const { return outer.size * inner.size; }
    // Rows from a group's first row to the first row past its block of groups: launches that
    // begin and end at multiples of it cut no group.
    uint64_t span() const { return outer.stride * outer.size; }
};
// The first variable is the one missing from the most entries of inputs read from global memory;
// a second, for ops that write more than they read (issue-bound), the one leaving the fewest input
// reads per row. Domains ≤ rowGroupMaxSize, strides ≥ rowGroupMinStride, ≤ rowGroupMaxRows rows;
// only ⊕-reducing or joining ops of a thread per row, whole eliminated spaces, ≥ rowGroupMinRows
// rows. The interleaved variable: the one whose lacking inputs read the most bytes per value of
// it, at least interleaveMinBytes.
RowGroup rowGroupOf(const TensorProgram &program, uint32_t op, const TensorKernelOptions &options);

// Threads a launch of a kernel with row group `group` over output rows [rowBegin, rowBegin +
// rowCount) needs (a warp per row where `warpPerRow`).
uint64_t kernelThreads(const RowGroup &group, bool warpPerRow, uint64_t rowBegin,
                       uint64_t rowCount);
// Rows per launch near `chunkRows` that cut no row group (a multiple of the group's span).
uint64_t launchChunkRows(const RowGroup &group, uint64_t chunkRows);

} // namespace zbddc::cuda
