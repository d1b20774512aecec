#include "compiler/zbdd/zbdd.h"

#include <algorithm>
#include <unordered_map>

namespace zbddc {

namespace {
uint64_t mix(uint64_t x) { // splitmix64 finaliser: cheap and well spread
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
uint64_t hash3(uint64_t a, uint64_t b, uint64_t c) {
    return mix(a * 0x9e3779b97f4a7c15ULL ^ mix(b + 0x632be59bd9b4e019ULL) ^ (c << 1));
}
constexpr size_t kInitialTable = 1 << 12;
constexpr size_t kMaxCache = size_t{1} << 26;
} // namespace

ZbddManager::ZbddManager(uint32_t numVars, size_t maxNodes)
    : numVars_(numVars), maxNodes_(std::max<size_t>(maxNodes, 2)), group_(numVars, kNoGroup) {
    reset();
}

void ZbddManager::reset() {
    var_.assign({numVars_, numVars_}); // terminals sit below every variable
    lo_.assign({0, 0});
    hi_.assign({0, 0});
    unique_.assign(kInitialTable, 0);
    cache_.assign(kInitialTable, CacheEntry{});
}

void ZbddManager::setGroup(uint32_t v, uint32_t group) {
    group_[v] = group;
    if (group != kNoGroup) {
        if (groupMax_.size() <= group)
            groupMax_.resize(group + 1, 0);
        groupMax_[group] = std::max(groupMax_[group], v);
    }
    std::fill(cache_.begin(), cache_.end(), CacheEntry{}); // cached exclusive joins are stale
}

ZbddRef ZbddManager::node(uint32_t v, ZbddRef lo, ZbddRef hi) {
    if (lo == kOverflow || hi == kOverflow)
        return kOverflow;
    if (hi == kZbddEmpty) // zero-suppression rule
        return lo;
    const size_t mask = unique_.size() - 1;
    for (size_t i = hash3(v, lo, hi) & mask;; i = (i + 1) & mask) {
        const uint32_t n = unique_[i];
        if (n == 0)
            break;
        if (var_[n] == v && lo_[n] == lo && hi_[n] == hi)
            return n;
    }
    if (var_.size() >= maxNodes_)
        return kOverflow;
    const auto n = static_cast<ZbddRef>(var_.size());
    var_.push_back(v);
    lo_.push_back(lo);
    hi_.push_back(hi);
    peakNodes_ = std::max(peakNodes_, var_.size());
    if (var_.size() * 2 > unique_.size())
        growUniqueTable(); // also inserts n
    else
        for (size_t i = hash3(v, lo, hi) & mask;; i = (i + 1) & mask)
            if (unique_[i] == 0) {
                unique_[i] = n;
                break;
            }
    return n;
}

void ZbddManager::growUniqueTable() {
    unique_.assign(unique_.size() * 2, 0);
    rebuildUniqueTable();
    // The cache grows with the arena (one entry per node), up to a fixed cap: a lossy cache much
    // smaller than the operands makes joins of million-node products recompute shared parts.
    if (cache_.size() < kMaxCache && cache_.size() < var_.size())
        cache_.assign(cache_.size() * 2, CacheEntry{});
}

void ZbddManager::rebuildUniqueTable() {
    std::fill(unique_.begin(), unique_.end(), 0);
    const size_t mask = unique_.size() - 1;
    for (uint32_t n = 2; n < var_.size(); ++n)
        for (size_t i = hash3(var_[n], lo_[n], hi_[n]) & mask;; i = (i + 1) & mask)
            if (unique_[i] == 0) {
                unique_[i] = n;
                break;
            }
}

bool ZbddManager::cacheLookup(Op op, uint32_t a, uint32_t b, ZbddRef &out) const {
    const CacheEntry &e = cache_[hash3(static_cast<uint32_t>(op), a, b) & (cache_.size() - 1)];
    if (e.op != static_cast<uint32_t>(op) || e.a != a || e.b != b)
        return false;
    out = e.result;
    return true;
}

void ZbddManager::cacheStore(Op op, uint32_t a, uint32_t b, ZbddRef result) {
    if (result == kOverflow)
        return;
    cache_[hash3(static_cast<uint32_t>(op), a, b) & (cache_.size() - 1)] =
        CacheEntry{static_cast<uint32_t>(op), a, b, result};
}

Result<ZbddRef> ZbddManager::finish(ZbddRef r) const {
    if (r == kOverflow)
        return error("ZBDD node limit of " + std::to_string(maxNodes_) +
                     " nodes exceeded (raise the node limit or try another variable ordering)");
    return r;
}

Result<ZbddRef> ZbddManager::single(uint32_t v) { return finish(node(v, kZbddEmpty, kZbddBase)); }

// Union, intersection and difference (Minato 1993) recurse alike on the top variable of f and
// g; they differ only where that variable is in one operand alone: its sets that hold it are kept
// (union; difference, for f's) or dropped.
ZbddRef ZbddManager::setOpRec(Op op, ZbddRef f, ZbddRef g) {
    if (f == g)
        return op == Op::Difference ? kZbddEmpty : f;
    if (f == kZbddEmpty)
        return op == Op::Unite ? g : kZbddEmpty;
    if (g == kZbddEmpty)
        return op == Op::Intersect ? kZbddEmpty : f;
    if (op != Op::Difference && f > g)
        std::swap(f, g); // commutative: one cache entry for both orders
    ZbddRef r;
    if (cacheLookup(op, f, g, r))
        return r;
    const uint32_t vf = top(f), vg = top(g);
    if (vf < vg) { // vf is in no set of g
        const ZbddRef lo = setOpRec(op, lo_[f], g);
        r = op == Op::Intersect ? lo : node(vf, lo, hi_[f]);
    } else if (vg < vf) { // vg is in no set of f
        const ZbddRef lo = setOpRec(op, f, lo_[g]);
        r = op == Op::Unite ? node(vg, lo, hi_[g]) : lo;
    } else {
        const ZbddRef lo = setOpRec(op, lo_[f], lo_[g]);
        r = node(vf, lo, lo == kOverflow ? kOverflow : setOpRec(op, hi_[f], hi_[g]));
    }
    cacheStore(op, f, g, r);
    return r;
}

ZbddRef ZbddManager::dropGroupRec(ZbddRef f, uint32_t group) {
    if (isTerminal(f) || top(f) > groupMax_[group])
        return f; // no variable of the group can occur below
    ZbddRef r;
    if (cacheLookup(Op::DropGroup, f, group, r))
        return r;
    if (group_[top(f)] == group)
        r = dropGroupRec(lo_[f], group);
    else {
        const ZbddRef lo = dropGroupRec(lo_[f], group);
        r = node(top(f), lo, lo == kOverflow ? kOverflow : dropGroupRec(hi_[f], group));
    }
    cacheStore(Op::DropGroup, f, group, r);
    return r;
}

// Join by Shannon expansion on the top variable v: with f = v·f1 + f0 and g = v·g1 + g0,
// f⋈g = v·(f1⋈g1 ∪ f1⋈g0 ∪ f0⋈g1) + f0⋈g0. In the exclusive join, the sets that take v may hold
// no other variable of v's group, so that group is dropped from the cofactors first.
ZbddRef ZbddManager::joinRec(ZbddRef f, ZbddRef g, bool exclusive) {
    if (f == kZbddEmpty || g == kZbddEmpty)
        return kZbddEmpty;
    if (f == kZbddBase)
        return g;
    if (g == kZbddBase)
        return f;
    if (f > g)
        std::swap(f, g);
    const Op op = exclusive ? Op::JoinExclusive : Op::Join;
    ZbddRef r;
    if (cacheLookup(op, f, g, r))
        return r;
    const uint32_t v = std::min(top(f), top(g));
    ZbddRef f1 = top(f) == v ? hi_[f] : kZbddEmpty, f0 = top(f) == v ? lo_[f] : f;
    ZbddRef g1 = top(g) == v ? hi_[g] : kZbddEmpty, g0 = top(g) == v ? lo_[g] : g;
    const ZbddRef lo = joinRec(f0, g0, exclusive);
    ZbddRef hi = lo == kOverflow ? kOverflow : kZbddEmpty;
    if (hi != kOverflow && exclusive && group_[v] != kNoGroup) {
        auto drop = [&](ZbddRef &x) {
            if (x != kOverflow)
                x = dropGroupRec(x, group_[v]);
            if (x == kOverflow)
                hi = kOverflow;
        };
        drop(f1), drop(f0), drop(g1), drop(g0);
    }
    for (auto [a, b] : {std::pair{f1, g1}, std::pair{f1, g0}, std::pair{f0, g1}}) {
        if (hi == kOverflow)
            break;
        const ZbddRef part = joinRec(a, b, exclusive);
        hi = part == kOverflow ? kOverflow : setOpRec(Op::Unite, hi, part);
    }
    r = node(v, lo, hi);
    cacheStore(op, f, g, r);
    return r;
}

ZbddRef ZbddManager::cofactorRec(Op op, ZbddRef f, uint32_t v) {
    if (isTerminal(f) || top(f) > v) { // v occurs in no set of f
        if (op == Op::Onset)
            return kZbddEmpty;
        if (op == Op::Offset)
            return f;
        return node(v, kZbddEmpty, f); // Change
    }
    if (top(f) == v) {
        if (op == Op::Onset)
            return hi_[f];
        if (op == Op::Offset)
            return lo_[f];
        return node(v, hi_[f], lo_[f]);
    }
    ZbddRef r;
    if (cacheLookup(op, f, v, r))
        return r;
    const ZbddRef lo = cofactorRec(op, lo_[f], v);
    r = node(top(f), lo, lo == kOverflow ? kOverflow : cofactorRec(op, hi_[f], v));
    cacheStore(op, f, v, r);
    return r;
}

Result<ZbddRef> ZbddManager::unite(ZbddRef f, ZbddRef g) {
    return finish(setOpRec(Op::Unite, f, g));
}
Result<ZbddRef> ZbddManager::intersect(ZbddRef f, ZbddRef g) {
    return finish(setOpRec(Op::Intersect, f, g));
}
Result<ZbddRef> ZbddManager::difference(ZbddRef f, ZbddRef g) {
    return finish(setOpRec(Op::Difference, f, g));
}
Result<ZbddRef> ZbddManager::join(ZbddRef f, ZbddRef g) { return finish(joinRec(f, g, false)); }
Result<ZbddRef> ZbddManager::joinExclusive(ZbddRef f, ZbddRef g) {
    return finish(joinRec(f, g, true));
}
Result<ZbddRef> ZbddManager::onset(ZbddRef f, uint32_t v) {
    return finish(cofactorRec(Op::Onset, f, v));
}
Result<ZbddRef> ZbddManager::offset(ZbddRef f, uint32_t v) {
    return finish(cofactorRec(Op::Offset, f, v));
}
Result<ZbddRef> ZbddManager::change(ZbddRef f, uint32_t v) {
    return finish(cofactorRec(Op::Change, f, v));
}
Result<ZbddRef> ZbddManager::restrictTo(ZbddRef f, uint32_t v) {
    const ZbddRef on = cofactorRec(Op::Onset, f, v);
    return finish(on == kOverflow ? kOverflow : node(v, kZbddEmpty, on));
}

double ZbddManager::countSets(ZbddRef f) const {
    // Children have smaller indices than parents, so one ascending sweep counts every node.
    std::vector<double> count(f + 1, 0.0);
    if (f >= 1)
        count[1] = 1.0;
    for (ZbddRef n = 2; n <= f; ++n)
        count[n] = count[lo_[n]] + count[hi_[n]];
    return count[f];
}

size_t ZbddManager::countNodes(ZbddRef f) const {
    std::vector<char> seen(f + 1, 0);
    std::vector<ZbddRef> stack{f};
    size_t nodes = 0;
    while (!stack.empty()) {
        const ZbddRef n = stack.back();
        stack.pop_back();
        if (isTerminal(n) || seen[n])
            continue;
        seen[n] = 1;
        ++nodes;
        stack.push_back(lo_[n]);
        stack.push_back(hi_[n]);
    }
    return nodes;
}

void ZbddManager::collectGarbage(std::span<ZbddRef> roots) {
    std::vector<char> live(var_.size(), 0);
    live[0] = live[1] = 1;
    std::vector<ZbddRef> stack(roots.begin(), roots.end());
    while (!stack.empty()) {
        const ZbddRef n = stack.back();
        stack.pop_back();
        if (live[n])
            continue;
        live[n] = 1;
        stack.push_back(lo_[n]);
        stack.push_back(hi_[n]);
    }
    std::vector<ZbddRef> moved(var_.size(), 0);
    moved[1] = 1;
    size_t next = 2;
    for (size_t n = 2; n < var_.size(); ++n) {
        if (!live[n])
            continue;
        moved[n] = static_cast<ZbddRef>(next);
        var_[next] = var_[n];
        lo_[next] = moved[lo_[n]];
        hi_[next] = moved[hi_[n]];
        ++next;
    }
    var_.resize(next);
    lo_.resize(next);
    hi_.resize(next);
    for (ZbddRef &r : roots)
        r = moved[r];
    size_t table = kInitialTable;
    while (table < next * 2)
        table *= 2;
    unique_.assign(table, 0);
    rebuildUniqueTable();
    std::fill(cache_.begin(), cache_.end(), CacheEntry{});
}

} // namespace zbddc
