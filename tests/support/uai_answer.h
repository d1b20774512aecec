// Compares two answers in the UAI output formats token by token: numbers agree within 1e-12
// relative (1e-15 absolute near 0), words exactly; an answer without a number is a failure.
#pragma once

#include "tests/catch.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>

namespace zbddc::testing {

inline void checkSameAnswer(const std::string &got, const std::string &want) {
    std::istringstream g(got), w(want);
    std::string a, b;
    size_t numbers = 0;
    while (w >> b) {
        REQUIRE(static_cast<bool>(g >> a));
        char *end = nullptr;
        const double y = std::strtod(b.c_str(), &end);
        if (*end == '\0' && end != b.c_str()) {
            ++numbers;
            const double x = std::strtod(a.c_str(), nullptr);
            INFO(a << " vs " << b);
            CHECK((x == y || std::abs(x - y) <= 1e-12 * std::abs(y) + 1e-15));
        } else {
            CHECK(a == b);
        }
    }
    CHECK_FALSE(static_cast<bool>(g >> a));
    CHECK(numbers > 0);
}

} // namespace zbddc::testing
