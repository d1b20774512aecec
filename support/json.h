// A JSON string literal, quoted and escaped: the one escaping that `zbddc run --json` and
// `zbddc stats --json` share.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace zbddc {

inline std::string jsonString(std::string_view s) {
    std::string out = "\"";
    for (char ch : s) {
        switch (ch) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        default:
            if (static_cast<unsigned char>(ch) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", ch);
                out += buf;
            } else {
                out += ch;
            }
        }
    }
    return out + "\"";
}

} // namespace zbddc
