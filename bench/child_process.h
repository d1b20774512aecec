// Running an external compiler from a benchmark: a child process with a wall-clock limit (a run
// that hits it is reported as such, never as a result), its time and peak memory from wait4.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace zbddc::bench {

using Clock = std::chrono::steady_clock;

inline double since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct ChildRun {
    bool ok = false, timedOut = false, missing = false; // missing: the program does not exist
    double seconds = 0;
    double peakMiB = 0;
};

// Runs argv (argv[0] looked up in PATH) with a wall-clock limit in seconds.
ChildRun runChild(const std::vector<std::string> &argv, double limit);

// True when `program` is found in PATH (e.g. gcc on a host without a compiler).
bool onPath(const std::string &program);

// This process's peak resident memory so far, MiB.
double selfPeakMiB();

} // namespace zbddc::bench
