// Small string helpers shared by readers and tools.
#pragma once

#include <string_view>

namespace zbddc {

inline bool endsWith(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

} // namespace zbddc
