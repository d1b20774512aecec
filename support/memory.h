// How much memory the host can still give this process: what work that scales with its threads
// (a tile of every slot per thread) is sized against.
#pragma once

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>
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

} // namespace zbddc
