// The pass interface: every pass rewrites a Schedule in place and records named statistics.
// Passes are listed, with their canonical order, in pipeline.cpp.
#pragma once

#include "ir/schedule.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace zbddc {

struct PipelineOptions {
    int optLevel = 2;                // -O0..-O3 choose the default pass list
    std::vector<std::string> passes; // --passes=a,b,c overrides the list when non-empty
    bool fuse = true;                // --no-fuse drops the merge passes
    bool verifyEach = kDebugBuild;   // run verify() after every pass
    DeviceShape device;              // block partition and preload sizes
    std::string justify = "greedy";  // "greedy" (Minato et al. 2011 §2) or "balance"
    uint32_t maxLeaves = 8;          // merge-trees: most operands one merged op may read
    uint32_t maxTypes = 12;          // merge-trees: most op types kept in the catalogue
    uint32_t gridMinOps = 0;        // split-phases: levels this wide run on the grid (0: sms·warp)
    uint32_t hostMaxOps = 32;       // split-phases: narrow leading/trailing levels run on host
    uint32_t threadsPerBlock = 256; // partition: threads per block on grid levels
    uint32_t lanesPerBlock = 1;     // preload: batch lanes sharing a block's shared memory
    // Called with each pass's name and the schedule after it (lowering included): -print-after
    // style dumps, or per-pass level profiles for `zbddc stats` (computeStats on each).
    std::function<void(const std::string &, const Schedule &)> afterEachPass;

#ifdef NDEBUG
    static constexpr bool kDebugBuild = false;
#else
    static constexpr bool kDebugBuild = true;
#endif
};

struct PassStats {
    std::string pass;
    std::vector<std::pair<std::string, double>> counters; // what the pass did, by name
    double wallMs = 0;
    double rssMiB = 0;      // resident memory after the pass
    double rssDeltaMiB = 0; // change in resident memory over the pass

    void add(std::string name, double value) { counters.emplace_back(std::move(name), value); }
};

using PassFn = void (*)(Schedule &, const PipelineOptions &, PassStats &);

// The passes (each in the file of its name).
void mergeSeedTypes(Schedule &, const PipelineOptions &, PassStats &); // Minato et al. 2011 §5
void mergeTrees(Schedule &, const PipelineOptions &, PassStats &);     // deeper single-parent trees
void levelize(Schedule &, const PipelineOptions &, PassStats &);       // ASAP levels
void justifyLevels(Schedule &, const PipelineOptions &, PassStats &);  // ALAP slack, even sizes
void unifyTypes(Schedule &, const PipelineOptions &, PassStats &);     // dummy 0/1 operands
void groupByType(Schedule &, const PipelineOptions &, PassStats &);    // types together, by x
void splitPhases(Schedule &, const PipelineOptions &, PassStats &);    // host / grid / one block
void partitionBlocks(Schedule &, const PipelineOptions &, PassStats &); // blocks and threads
void preloadShared(Schedule &, const PipelineOptions &, PassStats &);   // x tiles in shared memory
void assignSlots(Schedule &, const PipelineOptions &, PassStats &);     // contiguous, reused slots
void assignSlotsNoReuse(Schedule &, const PipelineOptions &, PassStats &);

} // namespace zbddc
