// Merging single-parent ops into their parent (Minato et al. 2011 §5): fewer, richer ops per level.
#include "compiler/passes/passes.h"
#include "ir/schedule_edit.h"

#include <algorithm>
#include <map>
#include <set>

namespace zbddc {

namespace {

constexpr uint32_t kLoadX = static_cast<uint32_t>(TemplateStep::LoadX);


// An op's template and operands while it grows.
struct Expr {
    std::vector<uint32_t> code, operands;
};

// Loads op's template and operands into `e` (reusing its storage).
void loadExpr(const Schedule &s, uint32_t op, Expr &e) {
    const uint32_t t = s.opType[op];
    e.code.assign(s.typeTemplate(t).begin(), s.typeTemplate(t).end());
    e.operands.assign(s.operands.begin() + s.opOperandBegin[op],
                      s.operands.begin() + s.opOperandBegin[op + 1]);
}

// Replaces the leaf that reads operand `leaf` with the child's whole template: the child's
// postfix is a complete subexpression, so it can stand where the leaf stood. Writes into `out`.
void substitute(const Expr &parent, uint32_t leaf, const Expr &child, Expr &out) {
    out.code.clear();
    uint32_t seen = 0;
    for (uint32_t step : parent.code) {
        if (isLoadStep(step) && seen++ == leaf)
            out.code.insert(out.code.end(), child.code.begin(), child.code.end());
        else
            out.code.push_back(step);
    }
    out.operands.assign(parent.operands.begin(), parent.operands.begin() + leaf);
    out.operands.insert(out.operands.end(), child.operands.begin(), child.operands.end());
    out.operands.insert(out.operands.end(), parent.operands.begin() + leaf + 1,
                        parent.operands.end());
}

uint32_t depthOf(const std::vector<uint32_t> &code) {
    std::vector<uint32_t> d;
    for (uint32_t step : code) {
        if (isLoadStep(step)) {
            d.push_back(0);
        } else {
            const uint32_t q = d.back();
            d.pop_back();
            d.back() = std::max(d.back(), q) + 1;
        }
    }
    return d.back();
}

// Merges children into parents, parents first (reverse SSA order): a single-reader child that
// `eligible` allows is absorbed while `grow` accepts the grown template; when the parent is done,
// merges are undone (last first) until `keep` accepts its template. Absorbed children disappear.
// Returns how many ops were absorbed.
template <class Eligible, class Grow, class Keep>
uint32_t mergeInto(Schedule &s, Eligible eligible, Grow grow, Keep keep) {
    const std::vector<uint32_t> readers = readerCounts(s);
    const std::vector<uint32_t> producer = producerOfSlots(s);
    std::vector<uint8_t> absorbed(s.numOps(), 0);
    // Grown expressions, flat: op p's is grownCode/grownOperands from grownAt[p] (kNone:
    // unchanged).
    std::vector<uint32_t> grownAt(s.numOps(), kNone), grownCode, grownOperands, grownBegin;
    uint32_t merged = 0;
    std::vector<std::pair<uint32_t, uint32_t>> history; // (leaf replaced, child absorbed)
    Expr e, candidate, child;
    for (uint32_t p = s.numOps(); p-- > 0;) {
        if (absorbed[p])
            continue;
        loadExpr(s, p, e);
        history.clear();
        // Walk the F leaves left to right; a leaf replaced by a child is revisited as its leaves.
        for (uint32_t leaf = 0, step = 0; step < e.code.size(); ++step) {
            if (!isLoadStep(e.code[step]))
                continue;
            const uint32_t slot = e.operands[leaf];
            const uint32_t c = slot < producer.size() ? producer[slot] : kNone;
            if (e.code[step] == kLoadX || c == kNone || readers[slot] != 1 || !eligible(s, c)) {
                ++leaf;
                continue;
            }
            loadExpr(s, c, child);
            substitute(e, leaf, child, candidate);
            if (!grow(candidate)) {
                ++leaf;
                continue;
            }
            history.emplace_back(leaf, c);
            std::swap(e, candidate);
            absorbed[c] = 1;
            step = static_cast<uint32_t>(-1); // restart the walk: leaf numbering shifted
            leaf = 0;
        }
        if (!history.empty() && !keep(e)) {
            // Undo the last merges until the template is kept: replay the earlier ones (rare).
            while (!history.empty() && !keep(e)) {
                absorbed[history.back().second] = 0;
                history.pop_back();
                loadExpr(s, p, e);
                for (const auto &[leaf, c] : history) {
                    loadExpr(s, c, child);
                    substitute(e, leaf, child, candidate);
                    std::swap(e, candidate);
                }
            }
        }
        merged += static_cast<uint32_t>(history.size());
        if (!history.empty()) {
            grownAt[p] = static_cast<uint32_t>(grownBegin.size());
            grownBegin.push_back(static_cast<uint32_t>(grownCode.size()));
            grownBegin.push_back(static_cast<uint32_t>(grownOperands.size()));
            grownCode.insert(grownCode.end(), e.code.begin(), e.code.end());
            grownOperands.insert(grownOperands.end(), e.operands.begin(), e.operands.end());
            grownBegin.push_back(static_cast<uint32_t>(grownCode.size()));
            grownBegin.push_back(static_cast<uint32_t>(grownOperands.size()));
        }
    }
    // Rebuild: surviving ops keep their order (still topological), one level each.
    Schedule out = withoutOps(s);
    std::map<std::vector<uint32_t>, uint32_t> typeOf; // the catalogue grows large before pruning
    for (uint32_t i = 0; i < s.numOps(); ++i) {
        if (absorbed[i])
            continue;
        if (grownAt[i] == kNone) {
            loadExpr(s, i, e);
        } else {
            const uint32_t *g = grownBegin.data() + grownAt[i];
            e.code.assign(grownCode.begin() + g[0], grownCode.begin() + g[2]);
            e.operands.assign(grownOperands.begin() + g[1], grownOperands.begin() + g[3]);
        }
        auto it = typeOf.find(e.code);
        if (it == typeOf.end())
            it = typeOf.emplace(e.code, appendType(out, e.code)).first;
        out.opType.push_back(it->second);
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

bool isType(const Schedule &s, uint32_t op, const char *name) {
    return s.typeName[s.opType[op]] == name;
}

} // namespace

// Minato et al. 2011 §5: only unmerged typeB ops with one parent are merged, and only where the
// parent becomes one of type1–type6 ("mergings that would produce more complicated types are not
// allowed"). Parents are typeA or typeB (type1/type3 are typeB/typeA themselves).
void mergeSeedTypes(Schedule &s, const PipelineOptions &, PassStats &st) {
    const uint32_t before = s.numOps();
    Schedule catalogue; // the six templates of Minato et al. 2011 §5, by name
    std::set<std::vector<uint32_t>> allowed;
    const uint32_t F = static_cast<uint32_t>(TemplateStep::LoadF), X = kLoadX;
    const uint32_t M = static_cast<uint32_t>(TemplateStep::Times),
                   A = static_cast<uint32_t>(TemplateStep::Plus);
    for (std::vector<uint32_t> code :
         std::vector<std::vector<uint32_t>>{{F, X, M},
                                            {F, X, M, X, M},
                                            {F, X, M, F, A},
                                            {F, X, M, X, M, F, A},
                                            {F, X, M, F, X, M, A},
                                            {F, X, M, X, M, F, X, M, A}})
        allowed.insert(code);
    const uint32_t merged = mergeInto(
        s, [](const Schedule &sc, uint32_t c) { return isType(sc, c, "typeB"); },
        [&](const Expr &e) { return allowed.count(e.code) > 0; },
        [](const Expr &) { return true; });
    st.add("ops before", before);
    st.add("ops merged", merged);
    st.add("ops after", s.numOps());
    st.add("reduction %", before ? 100.0 * merged / before : 0);
    st.add("types", s.numTypes());
}

// Beyond Minato et al. 2011: any single-parent op merges into its parent (deeper trees, parents
// first) while the merged op reads at most maxLeaves operands. A first round shows which templates
// that produces and how often; the catalogue keeps the original types and the most frequent merged
// templates up to maxTypes, and the second round undoes, per op, the last merges until its
// template is in the catalogue (Minato et al. 2011 §5: types must stay few for warps to stay full).
void mergeTrees(Schedule &s, const PipelineOptions &o, PassStats &st) {
    const uint32_t before = s.numOps();
    const auto any = [](const Schedule &, uint32_t) { return true; };
    const auto fits = [&](const Expr &e) { return e.operands.size() <= o.maxLeaves; };
    std::set<std::vector<uint32_t>> catalogue;
    for (uint32_t t = 0; t < s.numTypes(); ++t)
        catalogue.insert(templateCode(s, t));
    Schedule probe = s;
    mergeInto(probe, any, fits, [](const Expr &) { return true; });
    const uint32_t unrestricted = probe.numTypes();
    std::vector<std::pair<uint32_t, uint32_t>> frequency; // (ops, type) in the first round
    {
        std::vector<uint32_t> count(probe.numTypes(), 0);
        for (uint32_t t : probe.opType)
            ++count[t];
        for (uint32_t t = 0; t < probe.numTypes(); ++t)
            frequency.emplace_back(count[t], t);
        std::sort(frequency.rbegin(), frequency.rend());
    }
    for (const auto &[count, t] : frequency) {
        if (catalogue.size() >= o.maxTypes)
            break;
        catalogue.insert(templateCode(probe, t));
    }
    const uint32_t merged =
        mergeInto(s, any, fits, [&](const Expr &e) { return catalogue.count(e.code) > 0; });
    uint32_t maxDepth = 0;
    for (uint32_t t = 0; t < s.numTypes(); ++t)
        maxDepth = std::max(maxDepth, depthOf(templateCode(s, t)));
    st.add("ops before", before);
    st.add("ops merged", merged);
    st.add("ops after", s.numOps());
    st.add("reduction %", before ? 100.0 * merged / before : 0);
    st.add("ops if types unlimited", probe.numOps());
    st.add("types if unlimited", unrestricted);
    st.add("types", s.numTypes());
    st.add("max template depth", maxDepth);
}

} // namespace zbddc
