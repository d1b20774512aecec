// Renumbering and liveness. Each group's outputs get one contiguous run of slots (coalesced
// writes, Minato et al. 2011 §2); with reuse, a slot whose last reader ran in an earlier level is
// free again, so memory follows the widest live set rather than the circuit. Needs SSA slots (every
// slot written once), which every earlier pass keeps.
#include "compiler/passes/passes.h"
#include "ir/schedule_edit.h"

#include <map>
#include <set>

namespace zbddc {

namespace {

// Free intervals of slots, best fit by length, merged with their neighbours when freed.
class SlotAllocator {
  public:
    explicit SlotAllocator(uint32_t base) : top_(base) {}

    uint32_t allocate(uint32_t n) {
        auto it = byLength_.lower_bound({n, 0});
        if (it == byLength_.end()) {
            // Grow at the top, absorbing a free interval that ends there.
            if (!byStart_.empty() && byStart_.rbegin()->first + byStart_.rbegin()->second == top_) {
                const auto [start, len] = *byStart_.rbegin();
                erase(start, len);
                top_ = start;
            }
            const uint32_t at = top_;
            top_ += n;
            return at;
        }
        const auto [len, start] = *it;
        erase(start, len);
        if (len > n)
            insert(start + n, len - n);
        return start;
    }

    void release(uint32_t start, uint32_t len) {
        auto next = byStart_.lower_bound(start);
        if (next != byStart_.end() && start + len == next->first) {
            const auto [s, l] = *next;
            erase(s, l);
            len += l;
        }
        auto prev = byStart_.lower_bound(start);
        if (prev != byStart_.begin()) {
            --prev;
            if (prev->first + prev->second == start) {
                const auto [s, l] = *prev;
                erase(s, l);
                start = s;
                len += l;
            }
        }
        insert(start, len);
    }

    uint32_t top() const { return top_; }

  private:
    void insert(uint32_t start, uint32_t len) {
        byStart_[start] = len;
        byLength_.insert({len, start});
    }
    void erase(uint32_t start, uint32_t len) {
        byStart_.erase(start);
        byLength_.erase({len, start});
    }
    uint32_t top_;
    std::map<uint32_t, uint32_t> byStart_;
    std::set<std::pair<uint32_t, uint32_t>> byLength_;
};

// Rewrites every computed-slot operand and output through `map` (old slot -> new slot).
// LoadX operands of preloaded blocks are tile offsets and stay.
void remap(Schedule &s, const std::vector<uint32_t> &map, uint32_t numSlots) {
    for (uint32_t b = 0; b < s.numBlocks(); ++b)
        for (uint32_t i = s.blockOpBegin[b]; i < s.blockOpBegin[b + 1]; ++i)
            forEachLeaf(s, i, [&](TemplateStep step, uint32_t k) {
                if (!(step == TemplateStep::LoadX && s.blockPreloads(b)))
                    s.operands[k] = map[s.operands[k]];
            });
    for (uint32_t &o : s.outputs)
        o = map[o];
    s.numSlots = numSlots;
}

std::vector<uint32_t> identityBelow(const Schedule &s) {
    std::vector<uint32_t> map(s.numSlots, kNone);
    for (uint32_t slot = 0; slot < s.computedBase(); ++slot)
        map[slot] = slot;
    return map;
}

// The last level reading each slot (outputs: past the last level), via preload lists too.
std::vector<uint32_t> lastReadLevel(const Schedule &s) {
    std::vector<uint32_t> last(s.numSlots, 0);
    std::vector<uint8_t> read(s.numSlots, 0);
    for (uint32_t l = 0; l < s.numLevels(); ++l)
        for (uint32_t b = s.levelBlockBegin[l]; b < s.levelBlockBegin[l + 1]; ++b)
            for (uint32_t i = s.blockOpBegin[b]; i < s.blockOpBegin[b + 1]; ++i)
                forEachLeaf(s, i, [&](TemplateStep step, uint32_t k) {
                    if (!(step == TemplateStep::LoadX && s.blockPreloads(b))) {
                        last[s.operands[k]] = l;
                        read[s.operands[k]] = 1;
                    }
                });
    for (uint32_t o : s.outputs) {
        last[o] = s.numLevels();
        read[o] = 1;
    }
    for (uint32_t i = 0; i < s.numOps(); ++i)
        if (!read[s.opOut[i]])
            last[s.opOut[i]] = kNone; // never read: free right after its own level
    return last;
}

} // namespace

void assignSlotsNoReuse(Schedule &s, const PipelineOptions &, PassStats &st) {
    std::vector<uint32_t> map = identityBelow(s);
    const uint32_t before = s.numSlots;
    for (uint32_t i = 0; i < s.numOps(); ++i)
        map[s.opOut[i]] = s.computedBase() + i;
    for (uint32_t i = 0; i < s.numOps(); ++i)
        s.opOut[i] = map[s.opOut[i]];
    remap(s, map, s.computedBase() + s.numOps());
    st.add("slots before", before);
    st.add("slots", s.numSlots);
}

void assignSlots(Schedule &s, const PipelineOptions &, PassStats &st) {
    const std::vector<uint32_t> last = lastReadLevel(s);
    std::vector<uint32_t> map = identityBelow(s);
    const uint32_t base = s.computedBase();
    SlotAllocator slots(base);
    // dying[l]: slots whose last reader is in level l, freed before level l + 1 writes.
    std::vector<std::vector<uint32_t>> dying(s.numLevels() + 1);
    for (uint32_t l = 0; l < s.numLevels(); ++l) {
        for (uint32_t g = s.levelGroupBegin[l]; g < s.levelGroupBegin[l + 1]; ++g) {
            const uint32_t begin = s.groupOpBegin[g], n = s.groupOpBegin[g + 1] - begin;
            const uint32_t at = slots.allocate(n);
            for (uint32_t k = 0; k < n; ++k) {
                const uint32_t old = s.opOut[begin + k];
                map[old] = at + k;
                const uint32_t dies = last[old] == kNone ? l : last[old];
                if (dies < s.numLevels())
                    dying[dies].push_back(at + k);
            }
        }
        for (uint32_t slot : dying[l])
            slots.release(slot, 1);
        dying[l].clear();
        dying[l].shrink_to_fit();
    }
    for (uint32_t i = 0; i < s.numOps(); ++i)
        s.opOut[i] = map[s.opOut[i]];
    const uint32_t ssa = base + s.numOps();
    remap(s, map, slots.top());
    st.add("slots without reuse", ssa);
    st.add("slots", s.numSlots);
    st.add("computed slots saved %", s.numOps() ? 100.0 * (ssa - s.numSlots) / s.numOps() : 0);
}

} // namespace zbddc
