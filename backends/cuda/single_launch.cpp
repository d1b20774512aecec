#include "backends/cuda/single_launch.h"

#include <algorithm>

namespace zbddc::cuda {

namespace {

constexpr uint32_t kMaxLaneShift = 5; // 32 lanes: a warp's run of one slot

uint32_t floorLog2(uint32_t v) {
    uint32_t s = 0;
    while (v >> (s + 1))
        ++s;
    return s;
}

} // namespace

std::optional<SingleLaunchPlan> planSingleLaunch(const DevicePlan &p, const SingleLaunchLimits &l,
                                                 bool force) {
    if (l.batch == 0 || l.wordBytes == 0 || (!force && p.numOps() > l.maxOps))
        return std::nullopt;
    const uint32_t computed = p.numSlots - p.firstComputedSlot;
    auto fits = [&](uint32_t slots, uint32_t shift) {
        return uint64_t{slots} * (1u << shift) * l.wordBytes <= l.sharedBytes;
    };
    const uint32_t perSm = std::max(1u, l.batch / std::max(1u, l.multiprocessors));
    uint32_t shift = std::min({floorLog2(perSm), kMaxLaneShift, floorLog2(l.batch)});
    while (shift > 0 && !fits(computed, shift))
        --shift;
    if (!fits(computed, shift) && !force)
        return std::nullopt;

    SingleLaunchPlan plan;
    SingleLaunchParams &q = plan.params;
    q.laneShift = shift;
    const uint32_t lanes = 1u << shift;
    if (fits(p.numSlots, shift)) { // the inputs and constants too, copied in first
        q.sharedFirst = 0;
        q.sharedSlots = p.numSlots;
        q.stagedEnd = p.firstComputedSlot;
    } else { // the computed slots, as many as fit
        q.sharedFirst = p.firstComputedSlot;
        q.sharedSlots =
            std::min<uint64_t>(computed, l.sharedBytes / (uint64_t{lanes} * l.wordBytes));
        q.stagedEnd = p.firstComputedSlot;
    }
    plan.sharedBytes = q.sharedSlots * lanes * l.wordBytes;
    plan.blocks = (l.batch + lanes - 1) / lanes;
    // Enough threads for the widest step (a level, or the inputs' backward step), in warps.
    uint32_t widest = p.numInputs;
    for (uint32_t L = 0; L < p.numLevels(); ++L)
        widest = std::max(widest, p.levelWidth(L));
    const uint64_t items = uint64_t{widest} * lanes;
    plan.threads = static_cast<uint32_t>(
        std::clamp<uint64_t>((items + 31) / 32 * 32, 32, std::max(32u, l.maxThreads / 32 * 32)));
    return plan;
}

} // namespace zbddc::cuda
