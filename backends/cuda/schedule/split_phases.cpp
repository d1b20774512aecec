// Minato et al. 2011 §2: narrow levels do not pay on the GPU. Leading and trailing narrow levels
// run on the host (CPU preliminary / CPU posterior phases); wide levels run on the grid; narrow
// levels between wide ones — the multimodal profiles (HAILA/HAILB) the paper left open — run inside
// one block, where a barrier costs ~0.04 µs instead of a grid-wide ~1.2 µs (DESIGN.md), so no data
// goes back to the host mid-way.
#include "backends/cuda/schedule/gpu_passes.h"
#include "ir/levels.h"
#include "ir/schedule_edit.h"

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
    const NarrowEnds ends = narrowEnds(levels, o.hostMaxOps, width);
    const uint32_t pre = ends.pre, post = ends.post;
    for (uint32_t l = 0; l < levels; ++l) {
        const Phase p = l < pre     ? Phase::HostPre
                        : l >= post ? Phase::HostPost
                        : uint64_t{width(l)} * std::max(o.lanes, 1u) >= gridMin
                            ? Phase::Grid
                            : Phase::SingleBlock;
        s.levelPhase[l] = static_cast<uint32_t>(p);
    }
    joinShortBlockRuns(s, o.minBlockRun);
    uint32_t counts[4] = {0, 0, 0, 0};
    for (uint32_t l = 0; l < levels; ++l)
        ++counts[s.levelPhase[l]];
    // Data crossing the phase boundaries: values made on one side and read (or output) on the
    // other.
    auto onHost = [&](uint32_t l) { return l < pre || l >= post; };
    const std::vector<uint32_t> level = levelOfOps(s);
    const std::vector<uint32_t> producer = producerOfSlots(s);
    std::vector<uint8_t> toGpu(s.numSlots, 0), toHost(s.numSlots, 0);
    for (uint32_t i = 0; i < s.numOps(); ++i)
        for (uint32_t k = s.opOperandBegin[i]; k < s.opOperandBegin[i + 1]; ++k) {
            const uint32_t slot = s.operands[k], p = producer[slot];
            const bool readOnGpu = !onHost(level[i]);
            if (readOnGpu && (p == kNone || onHost(level[p])))
                toGpu[slot] = 1; // inputs, constants and host-pre values the GPU reads
            if (!readOnGpu && p != kNone && !onHost(level[p]))
                toHost[slot] = 1;
        }
    for (uint32_t slot : s.outputs)
        if (producer[slot] != kNone && !onHost(level[producer[slot]]))
            toHost[slot] = 1;
    double up = 0, down = 0;
    for (uint32_t slot = 0; slot < s.numSlots; ++slot) {
        up += toGpu[slot];
        down += toHost[slot];
    }
    st.add("grid min ops", gridMin);
    st.add("host-pre levels", counts[0]);
    st.add("grid levels", counts[1]);
    st.add("single-block levels", counts[2]);
    st.add("host-post levels", counts[3]);
    st.add("values host->gpu", up);
    st.add("values gpu->host", down);
}

} // namespace zbddc
