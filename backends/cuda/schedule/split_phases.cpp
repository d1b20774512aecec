// Minato et al. 2011 §2: narrow levels do not pay on the grid. Wide levels run on the grid;
// narrow ones — including the multimodal profiles (HAILA/HAILB) the paper left open — run inside
// one block, where a barrier costs ~0.04 µs instead of a grid-wide ~1.2 µs (DESIGN.md), so no data
// goes back to the host mid-way. The paper's host phases, the narrow ends on the CPU, are a cut
// of the circuit instead (compiler/passes/host_phases.h), made before a schedule is built.
#include "backends/cuda/schedule/gpu_passes.h"
#include "ir/schedule.h"

#include <algorithm>

namespace zbddc {

namespace {

// A run of fewer than `minRun` one-block levels with grid levels on both sides runs on the grid:
// leaving the grid costs a launch (~4 µs), more than a few grid-wide barriers (~1-2 µs each).
void joinShortBlockRuns(Schedule &s, uint32_t minRun) {
    const auto grid = static_cast<uint32_t>(Phase::Grid);
    const auto block = static_cast<uint32_t>(Phase::SingleBlock);
    const uint32_t levels = s.numLevels();
    for (uint32_t i = 0; i < levels;) {
        uint32_t j = i;
        while (j < levels && s.levelPhase[j] == s.levelPhase[i])
            ++j;
        if (s.levelPhase[i] == block && i > 0 && j < levels && s.levelPhase[i - 1] == grid &&
            s.levelPhase[j] == grid && j - i < minRun)
            std::fill(s.levelPhase.begin() + i, s.levelPhase.begin() + j, grid);
        i = j;
    }
}

} // namespace

void splitPhases(Schedule &s, const PipelineOptions &o, PassStats &st) {
    const uint64_t gridMin = o.gridMinOps ? o.gridMinOps : o.device.sms * o.device.warp;
    const uint32_t levels = s.numLevels();
    auto width = [&](uint32_t l) { return s.levelOpBegin[l + 1] - s.levelOpBegin[l]; };
    for (uint32_t l = 0; l < levels; ++l)
        s.levelPhase[l] = static_cast<uint32_t>(
            uint64_t{width(l)} * std::max(o.lanes, 1u) >= gridMin ? Phase::Grid
                                                                  : Phase::SingleBlock);
    joinShortBlockRuns(s, o.minBlockRun);
    uint32_t counts[kPhases] = {};
    for (uint32_t l = 0; l < levels; ++l)
        ++counts[s.levelPhase[l]];
    st.add("grid min ops", gridMin);
    st.add("grid levels", counts[static_cast<uint32_t>(Phase::Grid)]);
    st.add("single-block levels", counts[static_cast<uint32_t>(Phase::SingleBlock)]);
}

} // namespace zbddc
