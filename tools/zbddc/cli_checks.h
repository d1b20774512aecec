// Checks for command-line values that CLI11's own validators phrase badly or let through (an
// unsigned option takes "-5" as 2^64 - 5).
#pragma once

#include <CLI/CLI.hpp>

#include <cctype>
#include <charconv>
#include <cmath>
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

// A finite number in [low, high] (or [low, high) with `highOpen`; `lowOpen` likewise): NaN and
// infinities are refused, and the bounds print as written, not as CLI11's 300-digit doubles.
inline CLI::Validator finiteNumber(double low, double high, bool lowOpen, bool highOpen,
                                   const std::string &lowText, const std::string &highText) {
    const std::string range =
        (lowOpen ? "(" : "[") + lowText + ", " + highText + (highOpen ? ")" : "]");
    return CLI::Validator(
        [=](std::string &value) -> std::string {
            double x = 0;
            const char *end = value.data() + value.size();
            const auto parsed = std::from_chars(value.data(), end, x);
            const bool number =
                !value.empty() && parsed.ec == std::errc() && parsed.ptr == end && std::isfinite(x);
            const bool inside =
                number && (lowOpen ? x > low : x >= low) && (highOpen ? x < high : x <= high);
            if (!inside)
                return "expects a number in " + range + ", got '" + value + "'";
            return {};
        },
        range);
}

// A C identifier: what --symbol-prefix prepends to exported names.
inline CLI::Validator cIdentifier() {
    return CLI::Validator(
        [](std::string &value) -> std::string {
            const bool ok =
                !value.empty() && !std::isdigit(static_cast<unsigned char>(value[0])) &&
                value.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_") == std::string::npos;
            return ok ? std::string() : "expects a C identifier, got '" + value + "'";
        },
        "NAME");
}

// An old spelling refused with the new one: any value fails, naming the flag to use instead.
inline CLI::Validator renamedTo(const std::string &newName) {
    return CLI::Validator(
        [newName](std::string &) -> std::string { return "is now spelled " + newName; }, "");
}

} // namespace zbddc::cli
