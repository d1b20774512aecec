// Whether a computed value agrees with its oracle's: relative error within `rel` (absolute below
// 1), NaN never (results are poisoned with NaN before a run), infinities (a semiring's Zero) only
// with themselves.
#pragma once

#include <algorithm>
#include <cmath>

namespace zbddc::testing {

inline bool close(double got, double want, double rel = 1e-11) {
    if (std::isnan(got) || std::isnan(want))
        return false;
    if (std::isinf(want) || std::isinf(got))
        return got == want;
    return std::abs(got - want) <= rel * std::max(1.0, std::abs(want));
}

} // namespace zbddc::testing
