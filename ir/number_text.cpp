#include "ir/number_text.h"

#include <charconv>

namespace zbddc {

std::string shortestText(double v) {
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, end);
}

} // namespace zbddc
