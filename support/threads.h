// Fork-join over a few threads, for the CPU work that splits into independent parts.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace zbddc {

// `requested` threads, or one per core where it is 0 (at least one).
inline unsigned threadsOrCores(unsigned requested) {
    return requested ? requested : std::max(1u, std::thread::hardware_concurrency());
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
