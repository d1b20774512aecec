#include "ir/number_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace zbddc {

std::string shortestText(double v) {
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, end);
}

std::string exactText(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

std::string jsonNumber(double v) {
    return std::isfinite(v) ? shortestText(v) : "null";
}

std::string twoDigits(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2g", v);
    return buf;
}

} // namespace zbddc
