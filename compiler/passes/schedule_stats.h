// What a schedule looks like and what each pass bought, for `zbddc stats` (text and JSON): the
// level profile by op type (Minato et al. 2011 Figures 1 and 4), the parents histogram of the
// circuit (its Figure 2), slots, preload and phase counts, and every pass's counters and timing.
#pragma once

#include "ir/pass.h"
#include "ir/circuit.h"
#include "ir/schedule.h"

#include <array>
#include <iosfwd>
#include <string>
#include <vector>

namespace zbddc {

struct ScheduleStats {
    // The circuit before scheduling.
    uint32_t circuitNodes = 0;
    uint32_t circuitOps = 0;                // Plus/Times/MulAdd nodes
    std::vector<uint32_t> parentsHistogram; // [k] = ops read by k parents (last bucket: k or more)
    // The circuit's own ASAP levels before any pass (Minato et al. 2011 Figure 1): [level - 1] =
    // ops of that level as {typeA (MulAdd), typeB (Times), plus}; leaves are level 0 and not
    // counted.
    std::vector<std::array<uint32_t, 3>> circuitLevelOps;
    // The schedule.
    uint32_t ops = 0, levels = 0, slots = 0, computedSlots = 0;
    double meanLevelWidth = 0;                         // L̄ (Minato et al. 2011 §5): ops per level
    std::vector<std::string> typeNames;                // the catalogue
    std::vector<std::string> typeTemplates;            // postfix text per type
    std::vector<uint32_t> opsByType;                   // totals per type
    std::vector<uint32_t> levelWidth;                  // ops per level
    std::vector<uint32_t> levelPhase;                  // Phase per level
    std::vector<std::vector<uint32_t>> levelOpsByType; // [level][type]
    uint32_t phaseLevels[kPhases] = {};                // levels per Phase
    uint32_t preloadedBlocks = 0, preloadWords = 0;
    std::vector<PassStats> passes; // what each pass did, in order
};

ScheduleStats computeStats(const Circuit &circuit, const Schedule &schedule,
                           std::vector<PassStats> passes = {});

// Summary lines, the type catalogue, the parents histogram, each pass's counters, and (with
// `levels`) one line per level: width, phase and ops by type.
void writeStatsText(const ScheduleStats &stats, std::ostream &out, bool levels = true);

// One JSON object with every field above.
void writeStatsJson(const ScheduleStats &stats, std::ostream &out);

} // namespace zbddc
