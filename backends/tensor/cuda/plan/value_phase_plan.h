// The VALUE phase (Dechter 1999's backward pass; Fioretto et al. 2015 §2.2) flattened into one
// array of 32-bit words, so a single warp on the device can walk it over tables that never leave
// the device (value_phase_kernel.inc). Host-only: built and tested everywhere.
//
// The ops form a DAG (in bucket elimination, the bucket tree): an op reads only the variables
// that ops later in the program eliminate, so ops of equal depth are independent and a block's
// warps decode them at the same time; the sequential steps are the DAG's height, not the ops.
//
// Layout: nResults, result table ids; nOps; nDepths; per depth its op count; per op, depth by
// depth, the offset in the plan of its record; then per reducing op (Marginalize,
// EliminateBucket), last op first, its record:
//   nVars, per eliminated variable (variable, domain, stride low, stride high) — the stride of its
//          digit in the joint index, the last variable fastest as the host's odometer counts;
//   nInputs, per input the offset of its record from the op's record start, then per input
//          (table id, scope length, per scope variable (variable, domain)), where an eliminated
//          variable is written as 0x80000000 | its index among the op's `vars`.
#pragma once

#include "ir/tensor_program.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace zbddc::cuda {

// Fails where the plan's words cannot hold the program (over 2^31 variables, say). `pinned` (per
// variable, optional): variables that keep the value the assignment arrives with, as
// recoverAssignment's `pinned` (a junction tree's observed variables, per case).
Result<std::vector<uint32_t>> buildValuePhasePlan(const TensorProgram &program,
                                                  const std::vector<uint8_t> *pinned = nullptr);

// The plans of `cases` cases, one after another, each built as buildValuePhasePlan's with its row
// of `pinned` (numVariables entries a case; empty: none pinned): what the kernel walks, a block
// per case.
// Built on all cores: on small networks the host's plans, not the kernel, were the traceback's
// time (alarm, 2,000 cases: MPE at four times MAR's cost).
struct CasePlans {
    std::vector<uint32_t> words; // the plans
    std::vector<uint64_t> at;    // where each case's plan starts; one more entry, the end
    uint32_t threads = 32;       // the widest case's block (valuePhaseThreads)
    uint64_t longest = 0;        // the longest plan's words
};
Result<CasePlans> buildCasePlans(const TensorProgram &program, const std::vector<uint8_t> &pinned,
                                 uint32_t cases);

// The plan's shape: its ops and its depths (the DAG's height, the kernel's sequential steps), and
// the most ops of one depth (the warps worth launching, at most 32 of them).
struct ValuePhaseShape {
    uint32_t ops = 0, depths = 0, widest = 0;
};
ValuePhaseShape valuePhaseShape(const std::vector<uint32_t> &plan);

// The block the kernel runs as for a plan of this shape: a warp per op of the widest depth, 1
// to 32.
inline uint32_t valuePhaseThreads(ValuePhaseShape s) {
    return 32 * std::clamp<uint32_t>(s.widest, 1, 32);
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
