// The pass interface: every pass rewrites a Schedule in place and records named statistics. The
// target-independent passes live in compiler/passes (their canonical order in pipeline.cpp); a
// target's own passes (the GPU's phase split, block partition and shared-memory preload in
// backends/cuda/schedule) come in through PipelineOptions::targetPasses, as LLVM targets add
// theirs to the pass builder, so no pass depends on a backend and no backend on the compiler.
#pragma once

#include "ir/schedule.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace zbddc {

struct PassEntry;

struct PipelineOptions {
    int level = 2;                   // schedule level 0..3 chooses the default pass list
    std::vector<std::string> passes; // --passes=a,b,c overrides the list when non-empty
    bool fuse = true;                // --no-fuse drops the merge passes
    bool verifyEach = kDebugBuild;   // run verify() after every pass
    DeviceShape device;              // block partition and preload sizes
    std::string justify = "greedy";  // "greedy" (Minato et al. 2011 §2) or "balance"
    uint32_t maxLeaves = 8;          // merge-trees: most operands one merged op may read
    uint32_t maxTypes = 12;          // merge-trees: most op types kept in the catalogue
    bool keepValues = false;        // assign-slots-noreuse in the level's list (backward reads all)
    uint32_t lanes = 1;             // batch lanes per launch: an op's work is `lanes` items
    uint32_t gridMinOps = 0;        // split-phases: levels of this much work run on the grid
                                    // (ops × lanes; 0: sms·warp)
    uint32_t minBlockRun = 0;       // split-phases: shorter one-block runs between grid levels
                                    // join the grid (a launch costs more than a few barriers)
    uint32_t threadsPerBlock = 256; // partition: threads per block on grid levels
    // Called with each pass's name and the schedule after it (lowering included): -print-after
    // style dumps, or per-pass level profiles for `zbddc stats` (computeStats on each).
    std::function<void(const std::string &, const Schedule &)> afterEachPass;
    // The target's passes, run in this order after `group` and before slot assignment
    // (backends/cuda/schedule/gpu_passes.h: gpuSchedulePasses()). Empty: every level stays on
    // the host, one block per type group.
    std::vector<PassEntry> targetPasses;

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

// A pass by name, for the pipeline's registry. `fromLevel`: a target pass runs by default from
// this schedule level on (the generic passes' lists are fixed in compiler/passes/pipeline.cpp).
struct PassEntry {
    const char *name;
    PassFn run;
    int fromLevel = 0;
};

} // namespace zbddc
