// toulbar2 (Debian package), the oracle for WCSP optima: its branch and bound is independent of
// bucket elimination and of DPOP.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

namespace zbddc::testing {

// N of "Optimum: N in ..." from toulbar2's output, as printed, or nothing.
inline std::optional<std::string> toulbar2OptimumText(const std::string &path,
                                                      const std::string &options = "") {
    std::unique_ptr<FILE, int (*)(FILE *)> pipe(
        popen(("timeout 20 toulbar2 '" + path + "' " + options + " 2>&1").c_str(), "r"), pclose);
    if (!pipe)
        return std::nullopt;
    char line[4096];
    std::optional<std::string> optimum;
    while (std::fgets(line, sizeof line, pipe.get())) {
        char number[64];
        if (std::sscanf(line, "Optimum: %63s", number) == 1)
            optimum = number;
    }
    return optimum;
}

// Whether toulbar2 proves the problem has no solution below its upper bound.
inline bool toulbar2ProvesInfeasible(const std::string &path) {
    return std::system(
               ("timeout 20 toulbar2 '" + path + "' 2>&1 | grep -q '^No solution'").c_str()) == 0;
}

inline std::optional<double> toulbar2Optimum(const std::string &path,
                                             const std::string &options = "") {
    const auto text = toulbar2OptimumText(path, options);
    return text ? std::optional<double>(std::stod(*text)) : std::nullopt;
}

} // namespace zbddc::testing
