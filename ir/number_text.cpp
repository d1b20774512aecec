#include "ir/number_text.h"

#include <charconv>
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

} // namespace zbddc
