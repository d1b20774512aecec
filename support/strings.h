// Small string helpers shared by readers and tools.
#pragma once

#include <initializer_list>
#include <optional>
#include <string_view>

namespace zbddc {

inline bool endsWith(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The one of `values` that `nameOf` names `name`: the parse of an enum's names.
template <class E, class NameOf>
std::optional<E> byName(std::string_view name, std::initializer_list<E> values, NameOf nameOf) {
    for (E v : values)
        if (name == nameOf(v))
            return v;
    return std::nullopt;
}

} // namespace zbddc
