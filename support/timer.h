// Wall time for statistics: milliseconds since a steady-clock point.
#pragma once

#include <chrono>

namespace zbddc {

using SteadyTime = std::chrono::steady_clock::time_point;

inline double msSince(SteadyTime t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace zbddc
