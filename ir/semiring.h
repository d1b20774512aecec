// The commutative semirings a Circuit can be evaluated in. A circuit is built from the semiring's
// abstract Zero and One, so one ZBDD circuit serves PR (sum-product) and MPE (max-product).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

namespace zbddc {

enum class Semiring : uint8_t { SumProduct, MaxProduct, MaxSum, MinSum };

std::string_view semiringName(Semiring s);
std::optional<Semiring> parseSemiring(std::string_view name);

// Scalar arithmetic of each semiring in float64. `better(a, b)` says whether a is preferred by the
// semiring's ⊕ (needed for argmax traceback in max/min semirings).
struct SemiringOps {
    Semiring kind;

    double zero() const {
        switch (kind) {
        case Semiring::SumProduct:
        case Semiring::MaxProduct: return 0.0;
        case Semiring::MaxSum: return -std::numeric_limits<double>::infinity();
        case Semiring::MinSum: return std::numeric_limits<double>::infinity();
        }
        return 0.0;
    }
    double one() const {
        return kind == Semiring::SumProduct || kind == Semiring::MaxProduct ? 1.0 : 0.0;
    }
    double plus(double a, double b) const {
        switch (kind) {
        case Semiring::SumProduct: return a + b;
        case Semiring::MaxProduct:
        case Semiring::MaxSum: return std::max(a, b);
        case Semiring::MinSum: return std::min(a, b);
        }
        return a + b;
    }
    double times(double a, double b) const {
        return kind == Semiring::SumProduct || kind == Semiring::MaxProduct ? a * b : a + b;
    }
    bool better(double a, double b) const { return kind == Semiring::MinSum ? a < b : a > b; }
};

} // namespace zbddc
