#include "backends/tensor/cpu/incomplete_ops.h"

#include <algorithm>
#include <bit>

namespace zbddc::incomplete {

void radixSortByKey(std::vector<KeyedRow> &items, uint64_t maxKey) {
    constexpr unsigned kBits = 11;
    constexpr size_t kBuckets = size_t{1} << kBits;
    const unsigned bits = static_cast<unsigned>(std::bit_width(maxKey));
    std::vector<KeyedRow> scratch(items.size());
    std::vector<uint64_t> histogram(kBuckets);
    for (unsigned shift = 0; shift < bits; shift += kBits) {
        std::fill(histogram.begin(), histogram.end(), 0);
        for (const KeyedRow &r : items)
            ++histogram[(r.key >> shift) & (kBuckets - 1)];
        exclusiveScan(histogram);
        for (const KeyedRow &r : items)
            scratch[histogram[(r.key >> shift) & (kBuckets - 1)]++] = r;
        items.swap(scratch);
    }
}

int64_t Groups::find(uint64_t key) const {
    const auto it = std::lower_bound(keys.begin(), keys.end(), key);
    return it == keys.end() || *it != key ? -1 : static_cast<int64_t>(it - keys.begin());
}

Groups groupSortedRows(const std::vector<KeyedRow> &sorted) {
    Groups g;
    for (size_t i = 0; i < sorted.size(); ++i)
        if (i == 0 || sorted[i].key != sorted[i - 1].key) {
            g.keys.push_back(sorted[i].key);
            g.offsets.push_back(i);
        }
    g.offsets.push_back(sorted.size());
    return g;
}

uint64_t exclusiveScan(std::vector<uint64_t> &counts) {
    uint64_t sum = 0;
    for (uint64_t &c : counts) {
        const uint64_t n = c;
        c = sum;
        sum += n;
    }
    return sum;
}

template <class V>
void segmentedMin(const std::vector<KeyedRow> &sorted, double bound, std::vector<uint64_t> &rows,
                  std::vector<double> &values) {
    using C = EntryWord<V>;
    rows.clear();
    values.clear();
    for (size_t i = 0; i < sorted.size();) {
        V best = C::load(sorted[i].value);
        size_t j = i + 1;
        for (; j < sorted.size() && sorted[j].key == sorted[i].key; ++j)
            best = std::min(best, C::load(sorted[j].value));
        if (best < C::load(bound)) {
            rows.push_back(sorted[i].key);
            values.push_back(C::store(best));
        }
        i = j;
    }
}

template void segmentedMin<double>(const std::vector<KeyedRow> &, double, std::vector<uint64_t> &,
                                   std::vector<double> &);
template void segmentedMin<int64_t>(const std::vector<KeyedRow> &, double, std::vector<uint64_t> &,
                                    std::vector<double> &);

} // namespace zbddc::incomplete
