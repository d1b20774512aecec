// The data-parallel primitives of bucket elimination over incomplete tables (Bistaffa et al. 2017
// §IV), on the CPU: the shared-variable sort (LSD radix sort), group histograms with their prefix
// sums, and the two-pass join (count the feasible matches of every row, prefix-sum the counts into
// offsets, then write), and the segmented ⊕ (min) that eliminates. Each is a loop over independent
// rows, the shape of the paper's GPU kernels.
#pragma once

#include "ir/semiring.h"

#include <cstdint>
#include <vector>

namespace zbddc::incomplete {

// Costs are computed in V (double under MinSum, int64_t under MinSumInt64; EntryWord converts the
// table entries). Feasible values lie below the bound, and a join keeps a pair only when its sum
// does too, so no sum overflows.

// One row being sorted: its key, what it carries (a row index or a partial one), its cost.
struct KeyedRow {
    uint64_t key;
    uint64_t payload;
    double value;
};

// Stable LSD radix sort by key, 11 bits a pass, only as many passes as `maxKey` needs.
void radixSortByKey(std::vector<KeyedRow> &items, uint64_t maxKey);

// The groups of equal keys of key-sorted rows (Bistaffa et al. 2017 §IV-B's histogram and its
// exclusive prefix sum): keys[g] is group g's key, its rows are [offsets[g], offsets[g + 1]).
struct Groups {
    std::vector<uint64_t> keys;
    std::vector<uint64_t> offsets;
    // The group of `key`, or -1 when no row has it.
    int64_t find(uint64_t key) const;
};
Groups groupSortedRows(const std::vector<KeyedRow> &sorted);

// Exclusive prefix sum in place; returns the total.
uint64_t exclusiveScan(std::vector<uint64_t> &counts);

// Segmented min over key-sorted rows: one output row per distinct key, its least value (the ⊕ of
// min-sum elimination, Bistaffa et al. 2017 Alg. 5), rows whose least value is not below `bound`
// dropped. Values and the bound are table entries holding costs of type V.
template <class V = double>
void segmentedMin(const std::vector<KeyedRow> &sorted, double bound, std::vector<uint64_t> &rows,
                  std::vector<double> &values);

} // namespace zbddc::incomplete
