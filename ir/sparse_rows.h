// A table kept as its listed rows (ascending) with their values, every other row reading as one
// default: an incomplete table (ir/incomplete_tables.h) and a .wcsp default-cost function alike.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace zbddc {

template <class V>
V valueAtListedRow(const std::vector<uint64_t> &rows, const std::vector<V> &values,
                   V defaultValue, uint64_t row) {
    const auto it = std::lower_bound(rows.begin(), rows.end(), row);
    if (it == rows.end() || *it != row)
        return defaultValue;
    return values[static_cast<size_t>(it - rows.begin())];
}

} // namespace zbddc
