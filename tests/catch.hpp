// Catch2 v2 (Debian 12) and v3 (Ubuntu 24.04) behind one include: tests are written against the
// v2 names, and this maps the few that v3 moved.
#pragma once

#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#include <string>
using Catch::Approx;
namespace Catch {
inline Matchers::StringContainsMatcher Contains(const std::string &s) {
    return Matchers::ContainsSubstring(s);
}
using Matchers::EndsWith;
using Matchers::StartsWith;
} // namespace Catch
#else
#include <catch2/catch.hpp>
#endif
