// An enum's names as one table, read both ways: the name of a value, the value of a name. One row
// an enumerator, so a name and its parser cannot drift apart.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace zbddc {

template <class E> struct Named {
    E value;
    const char *name;
};

// `fallback` for a value the table lacks (one cast from an out-of-range number).
template <class E, size_t N>
constexpr const char *nameIn(const Named<E> (&table)[N], E value, const char *fallback = "?") {
    for (const Named<E> &row : table)
        if (row.value == value)
            return row.name;
    return fallback;
}

template <class E, size_t N>
constexpr std::optional<E> valueNamed(const Named<E> (&table)[N], std::string_view name) {
    for (const Named<E> &row : table)
        if (name == row.name)
            return row.value;
    return std::nullopt;
}

} // namespace zbddc
