// Merging single-parent ops into their parent (seed 003 §5), so fewer, richer ops run per level.
#include "compiler/passes/pass.h"
#include "compiler/passes/schedule_edit.h"

#include <algorithm>
#include <map>

namespace zbddc {

namespace {

constexpr uint32_t kLoadX = static_cast<uint32_t>(TemplateStep::LoadX);

bool isLoad(uint32_t step) { return step <= kLoadX; }

// An op's template and operands while it grows.
struct Expr {
    std::vector<uint32_t> code, operands;
};

Expr exprOf(const Schedule &s, uint32_t op) {
    const uint32_t t = s.opType[op];
    return {{s.typeCode.begin() + s.typeCodeBegin[t], s.typeCode.begin() + s.typeCodeBegin[t + 1]},
            {s.operands.begin() + s.opOperandBegin[op], s.operands.begin() + s.opOperandBegin[op + 1]}};
}

// Replaces the leaf that reads operand `leaf` with the child's whole template: the child's
// postfix is a complete subexpression, so it can stand where the leaf stood.
Expr substitute(const Expr &parent, uint32_t leaf, const Expr &child) {
    Expr e;
    uint32_t seen = 0;
    for (uint32_t step : parent.code) {
        if (isLoad(step) && seen++ == leaf)
            e.code.insert(e.code.end(), child.code.begin(), child.code.end());
        else
            e.code.push_back(step);
    }
    e.operands = parent.operands;
    e.operands.erase(e.operands.begin() + leaf);
    e.operands.insert(e.operands.begin() + leaf, child.operands.begin(), child.operands.end());
    return e;
}

uint32_t depthOf(const std::vector<uint32_t> &code) {
    std::vector<uint32_t> d;
    for (uint32_t step : code) {
        if (isLoad(step)) {
            d.push_back(0);
        } else {
            const uint32_t q = d.back();
            d.pop_back();
            d.back() = std::max(d.back(), q) + 1;
        }
    }
    return d.back();
}

// Merges children into parents, parents first (reverse SSA order), while `accept` allows the
// grown template; each absorbed child disappears. Returns how many ops were absorbed.
template <class Eligible, class Accept>
uint32_t mergeInto(Schedule &s, Eligible eligible, Accept accept) {
    const std::vector<uint32_t> readers = readerCounts(s);
    const std::vector<uint32_t> producer = producerOfSlots(s);
    std::vector<uint8_t> absorbed(s.numOps(), 0);
    std::vector<Expr> grown(s.numOps());
    std::vector<uint8_t> changed(s.numOps(), 0);
    uint32_t merged = 0;
    for (uint32_t p = s.numOps(); p-- > 0;) {
        if (absorbed[p])
            continue;
        Expr e = exprOf(s, p);
        // Walk the F leaves left to right; a leaf replaced by a child is revisited as its leaves.
        for (uint32_t leaf = 0, step = 0; step < e.code.size(); ++step) {
            if (!isLoad(e.code[step]))
                continue;
            const uint32_t slot = e.operands[leaf];
            const uint32_t c = slot < producer.size() ? producer[slot] : kNone;
            if (e.code[step] == kLoadX || c == kNone || readers[slot] != 1 || !eligible(s, c)) {
                ++leaf;
                continue;
            }
            Expr candidate = substitute(e, leaf, exprOf(s, c));
            if (!accept(candidate)) {
                ++leaf;
                continue;
            }
            e = std::move(candidate);
            absorbed[c] = 1;
            ++merged;
            step = static_cast<uint32_t>(-1); // restart the walk: leaf numbering shifted
            leaf = 0;
        }
        if (e.code.size() != s.typeCodeBegin[s.opType[p] + 1] - s.typeCodeBegin[s.opType[p]]) {
            grown[p] = std::move(e);
            changed[p] = 1;
        }
    }
    // Rebuild: surviving ops keep their order (still topological), one level each.
    Schedule out = s;
    out.opType.clear();
    out.opOut.clear();
    out.operands.clear();
    out.opOperandBegin = {0};
    out.typeName.clear();
    out.typeCode.clear();
    out.typeCodeBegin = {0};
    for (uint32_t i = 0; i < s.numOps(); ++i) {
        if (absorbed[i])
            continue;
        const Expr e = changed[i] ? grown[i] : exprOf(s, i);
        out.opType.push_back(internType(out, e.code));
        out.opOut.push_back(s.opOut[i]);
        out.operands.insert(out.operands.end(), e.operands.begin(), e.operands.end());
        out.opOperandBegin.push_back(static_cast<uint32_t>(out.operands.size()));
    }
    std::vector<uint32_t> order(out.numOps()), level(out.numOps());
    for (uint32_t i = 0; i < out.numOps(); ++i)
        order[i] = level[i] = i;
    rebuildOps(out, order, level, out.numOps());
    s = std::move(out);
    return merged;
}

bool isType(const Schedule &s, uint32_t op, const char *name) { return s.typeName[s.opType[op]] == name; }

} // namespace

// seed 003 §5: only unmerged typeB ops with one parent are merged, and only where the parent
// becomes one of type1–type6 ("mergings that would produce more complicated types are not
// allowed"). Parents are typeA or typeB (type1/type3 are typeB/typeA themselves).
void mergeSeedTypes(Schedule &s, const PipelineOptions &, PassStats &st) {
    const uint32_t before = s.numOps();
    const uint32_t merged = mergeInto(
        s, [](const Schedule &sc, uint32_t c) { return isType(sc, c, "typeB"); },
        [&](const Expr &e) {
            Schedule probe;
            const uint32_t t = internType(probe, e.code);
            const std::string &n = probe.typeName[t];
            return n == "typeB" || n == "typeA" || n == "type2" || n == "type4" || n == "type5" ||
                   n == "type6";
        });
    st.add("ops before", before);
    st.add("ops merged", merged);
    st.add("ops after", s.numOps());
    st.add("reduction %", before ? 100.0 * merged / before : 0);
    st.add("types", s.numTypes());
}

// Beyond the seed: any single-parent op merges into its parent (deeper trees) while the merged op
// reads at most maxLeaves operands; then only the maxTypes most frequent templates are kept —
// each op of a rarer template is merged again with a smaller limit until its type is kept.
void mergeTrees(Schedule &s, const PipelineOptions &o, PassStats &st) {
    const uint32_t before = s.numOps();
    const Schedule original = s;
    uint32_t limit = o.maxLeaves, merged = 0;
    // Shrink the leaf limit until the catalogue is small enough: a coarse but honest catalogue
    // choice (frequency decides which limit is kept; see docs in the report).
    for (;; --limit) {
        s = original;
        merged = mergeInto(
            s, [](const Schedule &, uint32_t) { return true; },
            [&](const Expr &e) { return e.operands.size() <= limit; });
        if (s.numTypes() <= o.maxTypes || limit <= 3)
            break;
    }
    std::map<uint32_t, uint32_t> depthHistogram;
    for (uint32_t t = 0; t < s.numTypes(); ++t)
        depthHistogram[depthOf({s.typeCode.begin() + s.typeCodeBegin[t], s.typeCode.begin() + s.typeCodeBegin[t + 1]})]++;
    st.add("ops before", before);
    st.add("ops merged", merged);
    st.add("ops after", s.numOps());
    st.add("reduction %", before ? 100.0 * merged / before : 0);
    st.add("leaf limit", limit);
    st.add("types", s.numTypes());
    uint32_t maxDepth = depthHistogram.empty() ? 0 : depthHistogram.rbegin()->first;
    st.add("max template depth", maxDepth);
}

} // namespace zbddc
