// Minato et al. 2011 §2, last paragraph: per block, the x operands its ops read are copied once
// into shared memory and the ops read them there. Ops are sorted by x (groupByType), so a block is
// cut into tiles whose distinct x fit the shared memory (M words); LoadX operands are rewritten at
// compile time to offsets into the tile's load list. Tiles that reuse no x are left as they are.
#include "backends/cuda/schedule/gpu_passes.h"

#include <algorithm>
#include <unordered_map>

namespace zbddc {

void preloadShared(Schedule &s, const PipelineOptions &o, PassStats &st) {
    const uint32_t words =
        std::max<uint32_t>(1, o.device.sharedMemBytes / (sizeof(double) * std::max(1u, o.lanes)));
    std::vector<uint32_t> levelBlockBegin{0}, blockOpBegin{0}, blockLoadBegin{0}, loads;
    std::vector<uint32_t> operands = s.operands;
    double xReads = 0, saved = 0, tiles = 0;
    std::unordered_map<uint32_t, uint32_t> local;
    std::vector<uint32_t> tileLoads;

    // The LoadX operand positions of op i.
    auto forEachX = [&](uint32_t i, auto f) {
        forEachLeaf(s, i, [&](TemplateStep step, uint32_t k) {
            if (step == TemplateStep::LoadX)
                f(k);
        });
    };
    for (uint32_t l = 0; l < s.numLevels(); ++l) {
        const auto phase = static_cast<Phase>(s.levelPhase[l]);
        const bool gpu = phase == Phase::Grid || phase == Phase::SingleBlock;
        for (uint32_t b = s.levelBlockBegin[l]; b < s.levelBlockBegin[l + 1]; ++b) {
            uint32_t tileBegin = s.blockOpBegin[b];
            uint32_t reads = 0;
            auto closeTile = [&](uint32_t end) {
                if (end == tileBegin)
                    return;
                if (gpu && reads > tileLoads.size()) { // reuse: preload pays
                    for (uint32_t i = tileBegin; i < end; ++i)
                        forEachX(i, [&](uint32_t k) { operands[k] = local.at(s.operands[k]); });
                    loads.insert(loads.end(), tileLoads.begin(), tileLoads.end());
                    saved += reads - tileLoads.size();
                    ++tiles;
                }
                xReads += gpu ? reads : 0;
                blockOpBegin.push_back(end);
                blockLoadBegin.push_back(static_cast<uint32_t>(loads.size()));
                tileBegin = end;
                reads = 0;
                local.clear();
                tileLoads.clear();
            };
            for (uint32_t i = s.blockOpBegin[b]; i < s.blockOpBegin[b + 1]; ++i) {
                uint32_t fresh = 0;
                forEachX(i, [&](uint32_t k) { fresh += !local.count(s.operands[k]); });
                if (gpu && tileLoads.size() + fresh > words)
                    closeTile(i);
                forEachX(i, [&](uint32_t k) {
                    ++reads;
                    if (local.emplace(s.operands[k], static_cast<uint32_t>(tileLoads.size()))
                            .second)
                        tileLoads.push_back(s.operands[k]);
                });
            }
            closeTile(s.blockOpBegin[b + 1]);
        }
        levelBlockBegin.push_back(static_cast<uint32_t>(blockOpBegin.size() - 1));
    }
    s.operands = std::move(operands);
    s.levelBlockBegin = std::move(levelBlockBegin);
    s.blockOpBegin = std::move(blockOpBegin);
    s.blockLoadBegin = std::move(blockLoadBegin);
    s.blockLoads = std::move(loads);
    st.add("shared words per block", words);
    st.add("preloaded tiles", tiles);
    st.add("gpu x reads", xReads);
    st.add("global loads saved", saved);
    st.add("saved %", xReads ? 100.0 * saved / xReads : 0);
}

} // namespace zbddc
