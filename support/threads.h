// Fork-join over a few threads, for the CPU work that splits into independent parts.
#pragma once

#include <algorithm>
#include <cstddef>
#ifdef __linux__
#include <sched.h>
#endif
#include <thread>
#include <vector>

namespace zbddc {

// The cores this process may run on: its CPU affinity where the system says (a process that
// mpirun, taskset or a container binds to fewer cores than the machine has gets that many), else
// the hardware threads. At least one.
inline unsigned availableCores() {
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return std::max(1, CPU_COUNT(&set));
#endif
    return std::max(1u, std::thread::hardware_concurrency());
}

// `requested` threads, or one per available core where it is 0.
inline unsigned threadsOrCores(unsigned requested) {
    return requested ? requested : availableCores();
}

// Threads for `items` items of work where a thread is worth starting for `perThread` of them:
// between one and one per core.
inline unsigned threadsFor(size_t items, size_t perThread) {
    return static_cast<unsigned>(std::clamp<size_t>(items / perThread, 1, threadsOrCores(0)));
}

// Runs work(t) for t = 0..n-1, each on a thread of its own and work(0) on the calling one, and
// returns when all have finished.
template <class Work> void onThreads(size_t n, const Work &work) {
    std::vector<std::thread> pool;
    for (size_t t = 1; t < n; ++t)
        pool.emplace_back(work, t);
    work(size_t{0});
    for (std::thread &t : pool)
        t.join();
}

// work(begin, end) over [0, n), split in contiguous ranges over `threads` threads (one range
// where n is below two per thread).
template <class Work> void inRanges(unsigned threads, size_t n, const Work &work) {
    if (threads <= 1 || n < 2 * size_t{threads}) {
        work(size_t{0}, n);
        return;
    }
    onThreads(threads, [&](size_t t) { work(n * t / threads, n * (t + 1) / threads); });
}

} // namespace zbddc
