// Timing a piece of host work for the benchmarks that time the host.
#pragma once

#include "support/timer.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace zbddc::bench {

// The best ms of `reps` calls of `work`, after one unmeasured call (which warms caches and
// compiles what a first call compiles).
inline double bestMs(int reps, const std::function<void()> &work) {
    work();
    double best = INFINITY;
    for (int r = 0; r < reps; ++r) {
        const SteadyTime start = std::chrono::steady_clock::now();
        work();
        best = std::min(best, msSince(start));
    }
    return best;
}

} // namespace zbddc::bench
