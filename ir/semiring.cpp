#include "ir/semiring.h"

namespace zbddc {

std::string_view semiringName(Semiring s) {
    switch (s) {
    case Semiring::SumProduct: return "sum-product";
    case Semiring::MaxProduct: return "max-product";
    case Semiring::MaxSum: return "max-sum";
    case Semiring::MinSum: return "min-sum";
    }
    return "?";
}

std::optional<Semiring> parseSemiring(std::string_view name) {
    for (Semiring s : {Semiring::SumProduct, Semiring::MaxProduct, Semiring::MaxSum,
                       Semiring::MinSum})
        if (semiringName(s) == name)
            return s;
    return std::nullopt;
}

} // namespace zbddc
