// A min-sum TensorProgram turned into a MinSumInt64 one whose values lie beyond 2^53: every input
// entry c becomes base + scale * c (forbidden stays forbidden). Every complete assignment reads
// one entry of each input table, so totals map by the same affine rule and the optimal
// assignments are unchanged, while float64 could no longer add them exactly.
#pragma once

#include "ir/tensor_program.h"

#include <cmath>
#include <cstring>
#include <vector>

namespace zbddc::testing {

inline double widenCost(double c, int64_t base, int64_t scale) {
    if (std::isinf(c))
        return int64Word(kInt64Forbidden);
    return int64Word(base + scale * static_cast<int64_t>(c));
}

// `program` must be MinSum with whole, non-negative finite costs.
inline void widenToInt64(TensorProgram &program, int64_t base = (int64_t{1} << 56) + 1,
                         int64_t scale = 3) {
    program.semiring = Semiring::MinSumInt64;
    for (Table &t : program.tables) {
        if (!t.input)
            continue;
        for (double &v : t.values)
            v = widenCost(v, base, scale);
        t.defaultValue = widenCost(t.defaultValue, base, scale);
    }
}

// Tables equal entry for entry as 8-byte words (int64 words that are NaN as doubles never compare
// equal with ==).
inline bool sameWords(const std::vector<std::vector<double>> &a,
                      const std::vector<std::vector<double>> &b) {
    if (a.size() != b.size())
        return false;
    for (size_t t = 0; t < a.size(); ++t)
        if (a[t].size() != b[t].size() ||
            (!a[t].empty() && std::memcmp(a[t].data(), b[t].data(), 8 * a[t].size()) != 0))
            return false;
    return true;
}

} // namespace zbddc::testing
