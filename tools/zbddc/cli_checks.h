// Checks for command-line values that CLI11's own validators phrase badly or let through (an
// unsigned option takes "-5" as 2^64 - 5).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace zbddc::cli {

// A whole number written in digits only; `positive` also refuses 0.
inline CLI::Validator wholeNumber(bool positive) {
    return CLI::Validator(
        [positive](std::string &value) -> std::string {
            const bool digits =
                !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
            if (!digits || (positive && value.find_first_not_of('0') == std::string::npos))
                return std::string("expects a ") + (positive ? "positive" : "non-negative") +
                       " whole number, got '" + value + "'";
            return {};
        },
        positive ? "N > 0" : "N >= 0");
}

} // namespace zbddc::cli
