// The commutative semirings a Circuit can be evaluated in. A circuit is built from the semiring's
// abstract Zero and One, so one ZBDD circuit serves PR (sum-product) and MPE (max-product).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>

namespace zbddc {

// MinSumInt64 is min-sum over whole costs beyond float64's 2^53 (weighted CSPs whose upper bound
// is up to 2^63 - 1, as toulbar2 reads them): a value is an int64 in [0, kInt64Forbidden], where
// kInt64Forbidden (the ⊕ zero) absorbs every sum that reaches it. Tables keep 8-byte float64
// entries everywhere; under this semiring each entry holds the int64's bit pattern
// (int64Word / wordInt64), so every buffer, copy and pool is shared and only arithmetic differs.
// Only the elimination route's TensorProgram uses it: circuits refuse it.
enum class Semiring : uint8_t { SumProduct, MaxProduct, MaxSum, MinSum, MinSumInt64 };

inline constexpr int64_t kInt64Forbidden = std::numeric_limits<int64_t>::max();
inline double int64Word(int64_t v) { return std::bit_cast<double>(v); }
inline int64_t wordInt64(double w) { return std::bit_cast<int64_t>(w); }
// a + b for values in [0, kInt64Forbidden], saturating at kInt64Forbidden (never overflows: the
// sum of two such values fits in uint64).
inline int64_t saturatingCostSum(int64_t a, int64_t b) {
    const uint64_t s = static_cast<uint64_t>(a) + static_cast<uint64_t>(b);
    return s >= static_cast<uint64_t>(kInt64Forbidden) ? kInt64Forbidden : static_cast<int64_t>(s);
}

// A table entry read as the value type V that its semiring computes in (double; int64_t under
// MinSumInt64) and written back, for executors that loop in V.
template <class V> struct EntryWord {
    static_assert(std::is_same_v<V, double> || std::is_same_v<V, int64_t>);
    static V load(double w) {
        if constexpr (std::is_same_v<V, double>)
            return w;
        else
            return wordInt64(w);
    }
    static double store(V v) {
        if constexpr (std::is_same_v<V, double>)
            return v;
        else
            return int64Word(v);
    }
};

std::string_view semiringName(Semiring s);
std::optional<Semiring> parseSemiring(std::string_view name);

// Scalar arithmetic of each semiring on table entries (float64; int64 bit patterns under
// MinSumInt64). `better(a, b)` says whether a is preferred by the semiring's ⊕ (needed for argmax
// traceback in max/min semirings).
struct SemiringOps {
    Semiring kind;

    double zero() const {
        switch (kind) {
        case Semiring::SumProduct:
        case Semiring::MaxProduct: return 0.0;
        case Semiring::MaxSum: return -std::numeric_limits<double>::infinity();
        case Semiring::MinSum: return std::numeric_limits<double>::infinity();
        case Semiring::MinSumInt64: return int64Word(kInt64Forbidden);
        }
        return 0.0;
    }
    double one() const { // int64 0 has the bit pattern of float64 +0.0
        return kind == Semiring::SumProduct || kind == Semiring::MaxProduct ? 1.0 : 0.0;
    }
    double plus(double a, double b) const {
        switch (kind) {
        case Semiring::SumProduct: return a + b;
        case Semiring::MaxProduct:
        case Semiring::MaxSum: return std::max(a, b);
        case Semiring::MinSum: return std::min(a, b);
        case Semiring::MinSumInt64: return int64Word(std::min(wordInt64(a), wordInt64(b)));
        }
        return a + b;
    }
    double times(double a, double b) const {
        if (kind == Semiring::MinSumInt64)
            return int64Word(saturatingCostSum(wordInt64(a), wordInt64(b)));
        return kind == Semiring::SumProduct || kind == Semiring::MaxProduct ? a * b : a + b;
    }
    bool better(double a, double b) const {
        if (kind == Semiring::MinSumInt64)
            return wordInt64(a) < wordInt64(b);
        return kind == Semiring::MinSum ? a < b : a > b;
    }
};

} // namespace zbddc
