// CUDA source for a TensorProgram: one kernel per op, specialised to the op's shape — domain
// sizes and every input's strides are compile-time constants, so the closed-form indexing of
// Bistaffa et al. 2016 Alg. 3 (output row -> digits -> input offsets) compiles to multiplies and
// shifts. tensor_modules.h compiles one kernel per distinct shape, in modules built concurrently.
//
// Every op kernel is the fused join-marginalise of Fioretto et al. 2015 §3.2 (a Join is the case
// of no eliminated variable, a slice the case of fixed base offsets): for each output row, the ⊗
// of the inputs' entries for each joint value of the eliminated variables, reduced with ⊕. Two
// variants:
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
// kernel (generic_tensor_kernels.h; TensorKernelOptions::genericMaxWork's default). 2^20 entries
// are about four waves of an H100's resident threads (132 SMs × 2,048): such an op's time is a
// launch and a few dependent loads per thread, and the generic kernel differs from the specialised
// one in an add per division (its divisors are run-time words, divided by multiply-high and shift
// as a constant is), a loop over the eliminated values it does not unroll, and small inputs read
// through L1 rather than staged in shared memory. Measured without a GPU (bench/jt_kernels, 700 cases): ops under it walk 0.65% of munin's
// entries, 1.7% of pigs', 0.01% of munin1's, yet are 85%, 95% and 76% of their ops; munin keeps
// 386 distinct kernels of 1,008 and NVRTC's CPU time falls from 28.6 s to 12.6 s (2^16 keeps 753
// kernels; 2^22, 314 for 1.5% of the entries).
inline constexpr uint64_t kGenericMaxWork = uint64_t{1} << 20;

struct TensorKernelOptions {
    unsigned blockThreads = 256;
    unsigned warpRowThreshold = 32;    // eliminated spaces at least this large use warp-per-row
    unsigned sharedInputBytes = 32768; // budget for staging small inputs in shared memory
    unsigned sharedInputMaxEntries = 2048;
    // Kernels take two more arguments (u64 elimBegin, u64 elimCount): only that range of the
    // eliminated joint values is reduced, ⊕-combined into out[r] unless elimBegin is 0. For
    // out-of-core plans that split eliminated spaces (chunk_plan.h); off, loops have constant
    // bounds and unroll.
    bool eliminationRange = false;
    // Row groups (rowGroupOf): a thread computes up to rowGroupMaxRows rows of an op whose output
    // has at least rowGroupMinRows rows. Tests lower the threshold to reach the path on small
    // programs; rowGroups = false keeps a thread per row everywhere.
    bool rowGroups = true;
    unsigned rowGroupMaxSize = 8;  // a group variable's domain
    unsigned rowGroupMaxRows = 32; // the rows of a group (the product of its variables' domains)
    // A second group variable only for ops that write more than they read (rowGroupOf); tests
    // clear it to reach two-variable groups on small programs.
    bool rowGroupPairsWhenExpanding = true;
    uint64_t rowGroupMinRows = uint64_t{1} << 20;
    uint64_t rowGroupMinStride = 32; // a warp's threads write consecutive rows
    // Interleaved tiles (RowGroup::interleaved) where the inputs that lack an output variable
    // read at least this many bytes per value of it (a third of an H100's or H200's 50 MB L2
    // cache: below it the rows are still cached when read again, so tiles have nothing to save),
    // in tiles of at least this many groups. Tests lower both to reach the path.
    uint64_t interleaveMinBytes = uint64_t{16} << 20;
    uint64_t interleaveTileGroups = 1024;
    // Tables as 32-bit floats (the kernels' zb_val; inputs and output pointers of that type), where
    // narrow_costs.h proves every value exact: half the bytes moved per entry.
    bool float32 = false;
    // Generic kernels get their fused entry point too (generic_tensor_kernels.h), for runs that
    // launch a level's small ops together: it costs NVRTC time (pigs' junction tree, 102 generic
    // kernels: 11.2 s of CPU without, 13.8-15.8 s with), which runs that never fuse do not pay.
    bool fusedEntries = false;
    // Outputs of at least this many bytes are written with streaming stores (evict first): they
    // cannot stay in the L2 cache for the next op anyway, and cached stores of a table larger than
    // it took grid-81's 4.9·10^7-row join 98.6 µs against 81.5 on an H200 (bench/results/NOTEBOOK.md; whole
    // runs moved less than their spread). 0: plain stores everywhere; the GPU executors set the
    // device's L2 size (op_launch.h streamingStoreMinBytes).
    uint64_t streamingStoreMinBytes = 0;
    // Ops that walk at most this many entries share their family's generic kernel
    // (generic_tensor_kernels.h); 0: every op specialised.
    uint64_t genericMaxWork = kGenericMaxWork;
};

// Kernel signature: (const zb_val *const *inputs, zb_val *out, unsigned long long rowBegin,
// unsigned long long rowCount) — `inputs` in the op's input order, `out` relative to rowBegin so
// the host can run an output table chunk by chunk — plus (elimBegin, elimCount) with
// options.eliminationRange; zb_val is double, or float with options.float32. The kernels read input
// j as inputs[j][offset]: the out-of-core path passes a slice's device address minus its first row,
// so offsets stay those of the whole table.
// A module's source: the prelude (types, semiring functions), then each op's kernel under a name
// of the caller's. Ops of the same shape get the same kernel text, and small ops of
// one family the same generic text (generic_tensor_kernels.h: its launch passes the op's shape).
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

// Variable v's entry of tableStrides(table), without building them all; 0 where the table lacks v.
uint64_t variableStride(const Table &table, uint32_t v);

// Whether op `op` is generated as warp-per-row (the host launches 32 threads per row).
bool usesWarpPerRow(const TensorProgram &program, uint32_t op, const TensorKernelOptions &options);

// A row group: the rows of an output that differ only in one or two output variables, computed
// by one thread. Inputs that lack a group variable are read once for all the group's values of it
// instead of once per row (a join whose output is larger than its inputs spends most of its
// instructions on those reads and on decoding row digits, which the group shares), and an input
// that lacks the output's most significant variables is streamed once instead of once per value of
// them (it is larger than the L2 cache on the instances that matter, so each pass came from DRAM
// again). Members are at least `stride` rows apart, so consecutive threads still write consecutive
// rows.
struct RowGroupVar {
    uint32_t var = 0;    // the variable's index in the output's scope
    uint32_t size = 1;   // its domain
    uint64_t stride = 1; // its stride in the output
};
struct RowGroup {
    RowGroupVar outer; // the more significant variable; size 1: a thread per row
    RowGroupVar inner; // a second, less significant variable, or size 1
    // An output variable besides the group's that a large input lacks (size 1: none). Taken in
    // row order, the groups stream that input once per value of the variable, each pass from
    // DRAM again once the input outgrows the L2 cache (grid-81's 4.9·10^7-row join read its
    // 39 MB input five times). Consecutive threads instead take a tile of tileGroups groups for
    // each value of it in turn, so the input's rows a tile reads are read again while they are in
    // the cache. Launches reorder only whole periods of the variable (valueGroups times its
    // domain, aligned in the output); groups outside them keep row order.
    RowGroupVar interleaved;
    uint64_t valueGroups = 1; // groups per value of it: the group index's digits below it
    uint64_t tileGroups = 1;  // a product of the domains of the group index's lowest digits
    uint32_t rows() const { return outer.size * inner.size; }
    // Rows from a group's first row to the first row past its block of groups: launches that
    // begin and end at multiples of it cut no group.
    uint64_t span() const { return outer.stride * outer.size; }
};
// The first variable chosen is the one missing from the largest total of entries of inputs read
// from global memory (larger than options.sharedInputMaxEntries): it keeps large inputs streamed
// once. A second one is added where some input lacks it, chosen to leave the fewest input reads
// per row (ties: the most global entries missing it): those reads and the row's decoding are the
// instructions of a join that writes more than it reads, which is issue-bound (only such ops get
// one, unless options.rowGroupPairsWhenExpanding is cleared). Each variable has a domain of at
// most options.rowGroupMaxSize and a stride of at least rowGroupMinStride (so writes coalesce); a
// group has at most options.rowGroupMaxRows rows. Only ops that reduce with ⊕ or join (not
// InverseMax or evidence slices), a thread per row, whole eliminated spaces (not
// eliminationRange), at least options.rowGroupMinRows rows. The interleaved variable, where any:
// the one outside the group whose lacking inputs read the most bytes per value of it (their
// entries over the output variables above it), at least options.interleaveMinBytes.
RowGroup rowGroupOf(const TensorProgram &program, uint32_t op, const TensorKernelOptions &options);

// Threads a launch of a kernel with row group `group` over output rows [rowBegin, rowBegin +
// rowCount) needs (a warp per row where `warpPerRow`).
uint64_t kernelThreads(const RowGroup &group, bool warpPerRow, uint64_t rowBegin,
                       uint64_t rowCount);
// Rows per launch near `chunkRows` that cut no row group (a multiple of the group's span).
uint64_t launchChunkRows(const RowGroup &group, uint64_t chunkRows);

} // namespace zbddc::cuda
