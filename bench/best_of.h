// Timing a piece of host work for the benchmarks that time the host.
#pragma once

#include "support/timer.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

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

// The median µs of `answer(i)` over i < cases, after one unmeasured call of answer(0); NAN
// where a call fails (no GPU, say).
inline double medianMicros(size_t cases, const std::function<bool(size_t)> &answer) {
    if (cases == 0 || !answer(0))
        return NAN;
    std::vector<double> us;
    for (size_t c = 0; c < cases; ++c) {
        const SteadyTime start = std::chrono::steady_clock::now();
        if (!answer(c))
            return NAN;
        us.push_back(msSince(start) * 1000);
    }
    std::sort(us.begin(), us.end());
    return us[us.size() / 2];
}

} // namespace zbddc::bench
