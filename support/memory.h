// How much memory the host can still give this process: what work that scales with its threads
// (a tile of every slot per thread) is sized against.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>
#include <sys/mman.h>
#include <unistd.h>

namespace zbddc {

// /proc/meminfo's MemAvailable (free memory plus what the kernel can reclaim), else the free
// pages, in bytes; 0 where neither is known.
inline uint64_t availableMemoryBytes() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    uint64_t kib = 0;
    while (meminfo >> key >> kib)
        if (key == "MemAvailable:")
            return kib * 1024;
        else
            meminfo.ignore(256, '\n');
    const long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? uint64_t(pages) * uint64_t(size) : 0;
}

// At most `threads` threads, as many as half the available memory holds at `bytesPerThread`
// each (at least one). Up to a gigabyte in all the memory is not asked (reading /proc costs tens
// of microseconds, and a small evaluation runs for about as long).
inline unsigned threadsThatFit(unsigned threads, uint64_t bytesPerThread) {
    if (threads <= 1 || uint64_t{threads} * bytesPerThread <= (uint64_t{1} << 30))
        return threads;
    const uint64_t available = availableMemoryBytes();
    if (available == 0 || bytesPerThread == 0)
        return threads;
    const uint64_t fit = available / 2 / bytesPerThread;
    return static_cast<unsigned>(std::max<uint64_t>(1, std::min<uint64_t>(threads, fit)));
}

// Asks the kernel to back the whole 2 MiB pages inside [p, p + bytes) with transparent huge pages
// (a no-op where they are off), before the memory is first touched: a first touch of fresh memory
// in 4 KiB pages costs a page fault each, and the GPU path's large host tables are written once,
// straight after allocation (out-of-core and downloaded tables). Measured against 4 KiB pages
// in 2026-11 (bench/results/NOTEBOOK.md, 2026-11-28 staged-copy runs: it helped in two of three
// pairs).
inline void adviseHugePages(void *p, size_t bytes) {
    constexpr uintptr_t kHuge = uintptr_t{2} << 20;
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
    if (end > begin)
        (void)madvise(reinterpret_cast<void *>(begin), end - begin, MADV_HUGEPAGE);
}

// Room for `n` values in an empty `values`, advised to huge pages before they are first touched.
template <class T> void reserveOnHugePages(std::vector<T> &values, size_t n) {
    values.reserve(n);
    adviseHugePages(values.data(), n * sizeof(T));
}

} // namespace zbddc
