// SAPPOROBDD's ZBDD export text (`_i L`, `_o R`, `_n N`, then node lines `id level lo hi` children
// first, then R root lines). Node ids are even; an odd id is a complement edge, which for a ZBDD
// toggles whether the empty set belongs to the family. We materialise those toggles as plain
// nodes, since our ZBDDs have no complement edges. Levels count up towards the root; our variables
// count down, so level l becomes variable L - l.
#include "compiler/frontends/zdd/zdd_format.h"
#include "ir/text_lines.h"

#include <unordered_map>

namespace zbddc {
namespace {

constexpr uint32_t kMaxLevels = 1u << 24;

class SapporoParser {
  public:
    SapporoParser(std::string_view text, const std::string &name) : in_(text, name, '\0') {}

    Result<ZddModel> parse() {
        auto levels = field("_i", "number of levels");
        if (!levels)
            return levels.error();
        auto outputs = field("_o", "number of outputs");
        if (!outputs)
            return outputs.error();
        auto count = field("_n", "number of nodes");
        if (!count)
            return count.error();
        // Every level becomes an input of the model, named and valued by the caller: a count
        // beyond this is a malformed file (2·10^9 levels once ran the reader out of memory).
        if (*levels > kMaxLevels)
            return errorAt(in_.name(), 1,
                           "_i " + std::to_string(*levels) + ": at most " +
                               std::to_string(kMaxLevels) +
                               " levels (each one is an input of the model)");
        levels_ = *levels;
        for (uint32_t l = levels_; l >= 1; --l)
            model_.vars.push_back(
                {InputKind::Free, kNone, kNone, 0.0, "level" + std::to_string(l)});
        for (uint64_t i = 0; i < *count; ++i)
            if (Status s = nodeLine(); !s)
                return s.error();
        for (uint64_t r = 0; r < *outputs; ++r) {
            auto root = edge("root");
            if (!root)
                return root.error();
            model_.roots.push_back(*root);
            model_.rootNames.push_back("f" + std::to_string(r));
        }
        if (!in_.atEnd())
            return in_.fail("unexpected '" + std::string(*in_.token("")) + "' after the roots");
        return std::move(model_);
    }

  private:
    Result<uint32_t> field(std::string_view key, std::string_view what) {
        if (Status s = in_.expect(key); !s)
            return s.error();
        auto v = in_.unsignedInt(what, kNone - 2);
        if (!v)
            return v.error();
        return static_cast<uint32_t>(*v);
    }

    // A child or root: F, T, or a node id whose low bit marks a complement edge.
    Result<uint32_t> edge(std::string_view what) {
        auto t = in_.token(what);
        if (!t)
            return t.error();
        if (*t == "F")
            return kZddEmpty;
        if (*t == "T")
            return kZddBase;
        uint64_t id = 0;
        if (!parseUnsigned(*t, id))
            return in_.fail("expected " + std::string(what) + " (F, T or a node id), found " +
                            shownToken(*t));
        auto it = dense_.find(id & ~uint64_t{1});
        if (it == dense_.end())
            return in_.fail(std::string(what) + " " + std::string(*t) +
                            " is not a node defined above");
        return (id & 1) ? toggleEmpty(it->second) : it->second;
    }

    // The family with ∅ added or removed: only the lo chain changes.
    uint32_t toggleEmpty(uint32_t f) {
        if (f == kZddEmpty)
            return kZddBase;
        if (f == kZddBase)
            return kZddEmpty;
        if (auto it = toggled_.find(f); it != toggled_.end())
            return it->second;
        const ZddNode n = model_.node(f);
        const uint32_t lo = toggleEmpty(n.lo);
        model_.nodes.push_back({n.var, lo, n.hi});
        const uint32_t id = ZddModel::idOf(model_.nodes.size() - 1);
        toggled_[f] = id;
        return id;
    }

    Status nodeLine() {
        if (in_.atEnd())
            return in_.failAtEnd("unexpected end of file in the node lines");
        auto id = in_.unsignedInt("node id");
        if (!id)
            return id.error();
        if (*id & 1)
            return in_.fail("node id " + std::to_string(*id) +
                            " is odd (odd ids are complement edges)");
        if (dense_.count(*id))
            return in_.fail("duplicate node id " + std::to_string(*id));
        auto level = in_.unsignedInt("level");
        if (!level)
            return level.error();
        if (*level < 1 || *level > levels_)
            return in_.fail("level " + std::to_string(*level) + " is outside 1.." +
                            std::to_string(levels_));
        auto lo = edge("lo child");
        if (!lo)
            return lo.error();
        auto hi = edge("hi child");
        if (!hi)
            return hi.error();
        if (*hi == kZddEmpty)
            return in_.fail("node " + std::to_string(*id) +
                            ": hi child is F (not zero-suppressed)");
        const uint32_t var = levels_ - static_cast<uint32_t>(*level);
        for (uint32_t child : {*lo, *hi})
            if (child > kZddBase && model_.node(child).var <= var)
                return in_.fail("node " + std::to_string(*id) +
                                ": a child is not at a lower level");
        model_.nodes.push_back({var, *lo, *hi});
        dense_[*id] = ZddModel::idOf(model_.nodes.size() - 1);
        return Ok{};
    }

    TokenCursor in_;
    ZddModel model_;
    uint32_t levels_ = 0;
    std::unordered_map<uint64_t, uint32_t> dense_;
    std::unordered_map<uint32_t, uint32_t> toggled_;
};

} // namespace

Result<ZddModel> parseSapporoZdd(std::string_view text, const std::string &name) {
    return SapporoParser(text, name).parse();
}

} // namespace zbddc
