#include "ir/semiring.h"
#include "support/strings.h"

namespace zbddc {

std::string_view semiringName(Semiring s) {
    switch (s) {
    case Semiring::SumProduct: return "sum-product";
    case Semiring::MaxProduct: return "max-product";
    case Semiring::MaxSum: return "max-sum";
    case Semiring::MinSum: return "min-sum";
    case Semiring::MinSumInt64: return "min-sum-int64";
    }
    return "?";
}

std::optional<Semiring> parseSemiring(std::string_view name) {
    return byName(name,
                  {Semiring::SumProduct, Semiring::MaxProduct, Semiring::MaxSum, Semiring::MinSum},
                  semiringName);
}

} // namespace zbddc
