// The VALUE phase (Dechter 1999's backward pass; Fioretto et al. 2015 §2.2) flattened into 32-bit
// words, walked on the device over its tables (value_phase_kernel.inc). An op reads only variables
// that later ops eliminate, so ops of equal depth are independent and a block's warps decode them
// together. One plan serves every case of a batch; a case's pinned variables come apart, as bits
// (casePins). Host-only: built and tested everywhere.
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

// The kernel's pins of `cases` cases from `pinned` (as recoverAssignment's, numVariables a case):
// pinWords(numVariables) words a case, variable v at bit v % 32 of word v / 32.
inline uint32_t pinWords(size_t numVariables) {
    return static_cast<uint32_t>((numVariables + 31) / 32);
}
std::vector<uint32_t> casePins(const std::vector<uint8_t> &pinned, size_t numVariables,
                               uint32_t cases);

// The plan's ops, depths (sequential steps), most ops of one depth, most variables one op
// eliminates.
struct ValuePhaseShape {
    uint32_t ops = 0, depths = 0, widest = 0, vars = 0;
};
ValuePhaseShape valuePhaseShape(const std::vector<uint32_t> &plan);

// The kernel's block: a warp per op of the widest depth, 1 to 32.
inline uint32_t valuePhaseThreads(ValuePhaseShape s) {
    return 32 * std::clamp<uint32_t>(s.widest, 1, 32);
}

// Shared-memory words a block takes first where its case pins variables: per warp five words a
// variable of the largest op (zb_vp_pick), rounded up to even (8-byte arrays follow).
inline uint64_t valuePhasePicks(ValuePhaseShape s, uint32_t threads) {
    return (threads / 32 * 5 * uint64_t{s.vars} + 1) / 2 * 2;
}

// Rows [firstRow, firstRow + rows) of a table at device address `at`: a table in parts, as several
// devices hold a sliced one; the decoding device must be able to read `at` (peer access).
struct TableSegment {
    uint32_t table = 0;
    uint64_t firstRow = 0, rows = 0;
    unsigned long long at = 0; // a DevicePtr
};

// The kernel's three arrays for `segments` (zb_vp_tables): per table its first segment's index
// (plus an end entry), the segments' (first, end) rows, their addresses. Fails unless each table
// with segments is covered exactly; a table with none gets an empty one (never read).
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
