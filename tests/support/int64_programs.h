// A min-sum TensorProgram turned into a MinSumInt64 one whose values lie beyond 2^53: every input
// entry c becomes base + scale * c (forbidden stays forbidden). Every complete assignment reads
// one entry of each input table, so totals map by the same affine rule and the optimal
// assignments are unchanged, while float64 could no longer add them exactly.
#pragma once

#include "ir/tensor_program.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace zbddc::testing {

// base + scale * c, saturating at kInt64Forbidden as ⊗ does.
inline double widenCost(double c, int64_t base, int64_t scale) {
    if (std::isinf(c))
        return int64Word(kInt64Forbidden);
    const __int128 w = base + static_cast<__int128>(scale) * static_cast<int64_t>(c);
    return int64Word(w >= kInt64Forbidden ? kInt64Forbidden : static_cast<int64_t>(w));
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

// A widening whose totals straddle the int64 limit: an assignment of min-sum cost c ≤ limit
// totals inputs * base + scale * c < kInt64Forbidden, one of cost c > limit saturates to
// kInt64Forbidden. With scale = inputs and base = ⌊(kInt64Forbidden - 1 - scale * limit) /
// inputs⌋, the total at limit + 1 is at least kInt64Forbidden - inputs + scale. Partial costs
// then add past 2^63, which arithmetic that sums before it saturates or compares would wrap.
struct LimitWidening {
    int64_t inputs = 0, scale = 0, base = 0, limit = 0;
    // The total of an assignment of min-sum cost c (infinite: forbidden).
    int64_t total(double c) const {
        if (std::isinf(c) || c > static_cast<double>(limit))
            return kInt64Forbidden;
        return inputs * base + scale * static_cast<int64_t>(c);
    }
};

inline LimitWidening widenToLimit(TensorProgram &program, int64_t limit) {
    LimitWidening w;
    for (const Table &t : program.tables)
        w.inputs += t.input;
    w.inputs = std::max<int64_t>(w.inputs, 1);
    w.scale = w.inputs;
    w.limit = limit;
    w.base = (kInt64Forbidden - 1 - w.scale * limit) / w.inputs;
    widenToInt64(program, w.base, w.scale);
    return w;
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
