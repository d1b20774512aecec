// The VALUE phase (Dechter 1999's backward pass; Fioretto et al. 2015 §2.2) flattened into one
// array of 32-bit words, so a single warp on the device can walk it over tables that never leave
// the device (value_phase_kernel.inc). Host-only: built and tested everywhere.
//
// The ops form a DAG (in bucket elimination, the bucket tree): an op reads only the variables
// that ops later in the program eliminate, so ops of equal depth are independent and a block's
// warps decode them at the same time; the sequential steps are the DAG's height, not the ops.
//
// One plan serves every case of a batch: a case's pinned variables (its observed ones, which keep
// the value its assignment arrives with) reach the kernel apart, as bits (casePins), and each op
// leaves them out of the joint values it enumerates, at decode time.
//
// Layout: nResults, result table ids; nOps; nDepths; the most variables one op eliminates; per
// depth its op count; per op, depth by depth, the offset in the plan of its record; then per
// reducing op (Marginalize, EliminateBucket), last op first, its record:
//   nVars, per eliminated variable (variable, domain, stride low, stride high) — the stride of its
//          digit in the joint index, the last variable fastest as the host's odometer counts;
//   nInputs, per input the offset of its record from the op's record start, then per input
//          (table id, scope length, per scope variable (variable, domain)), where an eliminated
//          variable is written as 0x80000000 | its index among the op's `vars`.
#pragma once

#include "ir/tensor_program.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace zbddc::cuda {

// Fails where the plan's words cannot hold the program (over 2^31 variables, say).
Result<std::vector<uint32_t>> buildValuePhasePlan(const TensorProgram &program);

// The kernel's pins of `cases` cases from `pinned` (numVariables entries a case, as
// recoverAssignment's `pinned`: a junction tree's observed variables and its case variable, which
// keep the value the assignment arrives with): per case pinWords(numVariables) words, variable v
// at bit v % 32 of word v / 32.
inline uint32_t pinWords(size_t numVariables) {
    return static_cast<uint32_t>((numVariables + 31) / 32);
}
std::vector<uint32_t> casePins(const std::vector<uint8_t> &pinned, size_t numVariables,
                               uint32_t cases);

// The plan's shape: its ops and its depths (the DAG's height, the kernel's sequential steps), the
// most ops of one depth (the warps worth launching, at most 32 of them), and the most variables
// one op eliminates.
struct ValuePhaseShape {
    uint32_t ops = 0, depths = 0, widest = 0, vars = 0;
};
ValuePhaseShape valuePhaseShape(const std::vector<uint32_t> &plan);

// The block the kernel runs as for a plan of this shape: a warp per op of the widest depth, 1
// to 32.
inline uint32_t valuePhaseThreads(ValuePhaseShape s) {
    return 32 * std::clamp<uint32_t>(s.widest, 1, 32);
}

// The words of shared memory a block of `threads` takes first where its case pins variables: per
// warp its op's picks (zb_vp_pick: five words a variable of the plan's largest op), in all an
// even count (the kernel's arrays after them hold 8-byte words).
inline uint64_t valuePhasePicks(ValuePhaseShape s, uint32_t threads) {
    return (threads / 32 * 5 * uint64_t{s.vars} + 1) / 2 * 2;
}

// Rows firstRow .. firstRow + rows - 1 of a table, at device address `at` (its first row): a
// table held in parts, as several devices hold a sliced one (tensor_gpu.h). The device
// decoding must be able to read `at` (the same GPU, or a peer whose access it has enabled).
struct TableSegment {
    uint32_t table = 0;
    uint64_t firstRow = 0, rows = 0;
    unsigned long long at = 0; // a DevicePtr
};

// The kernel's three arrays for `segments` (zb_vp_tables in value_phase_kernel.inc): per table
// the index of its first segment (one more entry at the end), the segments' row ranges as
// (first, end) pairs, their addresses. Fails unless each table with segments is covered by them
// exactly (no gap, no overlap); a table with none gets an empty one (the plan never reads it).
struct SegmentArrays {
    using Word = unsigned long long; // the kernel's u64
    std::vector<uint32_t> at;
    std::vector<Word> rows;
    std::vector<Word> ptr;
};
Result<SegmentArrays> segmentArrays(const TensorProgram &program,
                                    std::vector<TableSegment> segments);
// The 32-bit words the kernel's copy of the arrays takes in shared memory, one of alignment
// included (it puts `rows` at an even word).
inline uint64_t segmentArrayWords(const SegmentArrays &a) {
    return a.at.size() + 1 + 2 * (a.rows.size() + a.ptr.size());
}

// The kernel's semiring arguments: whether ⊕ minimises, whether ⊗ multiplies.
inline int valuePhaseMinimizes(Semiring s) {
    return s == Semiring::MinSum || s == Semiring::MinSumInt64 ? 1 : 0;
}
inline int valuePhaseMultiplies(Semiring s) {
    return s == Semiring::SumProduct || s == Semiring::MaxProduct ? 1 : 0;
}

} // namespace zbddc::cuda
