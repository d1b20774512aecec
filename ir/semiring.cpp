#include "ir/semiring.h"
#include "support/name_table.h"

namespace zbddc {

namespace {
using S = Semiring;
constexpr Named<Semiring> kSemiringNames[] = {
    {S::SumProduct, "sum-product"}, {S::MaxProduct, "max-product"}, {S::MaxSum, "max-sum"},
    {S::MinSum, "min-sum"},         {S::MinSumInt64, "min-sum-int64"}};
} // namespace

std::string_view semiringName(Semiring s) { return nameIn(kSemiringNames, s); }

std::optional<Semiring> parseSemiring(std::string_view name) {
    auto s = valueNamed(kSemiringNames, name);
    if (s == Semiring::MinSumInt64) // named in output, never asked for by name
        return std::nullopt;
    return s;
}

} // namespace zbddc
