// The ZBDD package against brute-force set-family semantics on random families.
#include "compiler/zbdd/zbdd.h"

#include "tests/catch.hpp"

#include <algorithm>
#include <random>
#include <set>

using namespace zbddc;

namespace {
using Set = std::set<uint32_t>;
using Family = std::set<Set>;
constexpr uint32_t kVars = 7;

ZbddRef build(ZbddManager &m, const Family &family) {
    ZbddRef f = kZbddEmpty;
    for (const Set &s : family) {
        ZbddRef t = kZbddBase;
        for (uint32_t v : s)
            t = *m.change(t, v);
        f = *m.unite(f, t);
    }
    return f;
}

void enumerate(const ZbddManager &m, ZbddRef f, Set &prefix, Family &out) {
    if (f == kZbddEmpty)
        return;
    if (f == kZbddBase) {
        out.insert(prefix);
        return;
    }
    enumerate(m, m.lo(f), prefix, out);
    prefix.insert(m.var(f));
    enumerate(m, m.hi(f), prefix, out);
    prefix.erase(m.var(f));
}

Family familyOf(const ZbddManager &m, ZbddRef f) {
    Family out;
    Set prefix;
    enumerate(m, f, prefix, out);
    return out;
}

Family randomFamily(std::mt19937 &rng) {
    Family f;
    const int sets = std::uniform_int_distribution<int>(0, 12)(rng);
    for (int i = 0; i < sets; ++i) {
        Set s;
        for (uint32_t v = 0; v < kVars; ++v)
            if (rng() % 3 == 0)
                s.insert(v);
        f.insert(s);
    }
    return f;
}

// Variables 0-2 form group 0 and 4-5 group 1; 3 and 6 are free.
uint32_t groupOf(uint32_t v) { return v <= 2 ? 0 : (v == 4 || v == 5) ? 1 : kNoGroup; }

bool exclusiveOk(const Set &s) {
    int g0 = 0, g1 = 0;
    for (uint32_t v : s)
        g0 += groupOf(v) == 0, g1 += groupOf(v) == 1;
    return g0 <= 1 && g1 <= 1;
}
} // namespace

TEST_CASE("set operations agree with brute force on random families", "[zbdd]") {
    std::mt19937 rng(7);
    ZbddManager m(kVars, 1 << 20);
    for (uint32_t v = 0; v < kVars; ++v)
        m.setGroup(v, groupOf(v));
    for (int trial = 0; trial < 300; ++trial) {
        const Family a = randomFamily(rng), b = randomFamily(rng);
        const ZbddRef fa = build(m, a), fb = build(m, b);
        REQUIRE(familyOf(m, fa) == a);
        REQUIRE(m.countSets(fa) == static_cast<double>(a.size()));

        Family uni = a, inter, diff, joined, joinedEx;
        uni.insert(b.begin(), b.end());
        std::set_intersection(a.begin(), a.end(), b.begin(), b.end(),
                              std::inserter(inter, inter.end()));
        std::set_difference(a.begin(), a.end(), b.begin(), b.end(),
                            std::inserter(diff, diff.end()));
        for (const Set &x : a)
            for (const Set &y : b) {
                Set u = x;
                u.insert(y.begin(), y.end());
                joined.insert(u);
                if (exclusiveOk(x) && exclusiveOk(y) && exclusiveOk(u))
                    joinedEx.insert(u);
            }
        CHECK(familyOf(m, *m.unite(fa, fb)) == uni);
        CHECK(familyOf(m, *m.intersect(fa, fb)) == inter);
        CHECK(familyOf(m, *m.difference(fa, fb)) == diff);
        CHECK(familyOf(m, *m.join(fa, fb)) == joined);
        Family exA, exB; // joinExclusive's precondition: exclusive inputs
        std::copy_if(a.begin(), a.end(), std::inserter(exA, exA.end()), exclusiveOk);
        std::copy_if(b.begin(), b.end(), std::inserter(exB, exB.end()), exclusiveOk);
        CHECK(familyOf(m, *m.joinExclusive(build(m, exA), build(m, exB))) == joinedEx);
        // Canonical form: equal families are the same node.
        CHECK(*m.unite(fa, fb) == build(m, uni));

        const uint32_t v = rng() % kVars;
        Family on, off, changed, restricted;
        for (Set s : a) {
            if (s.count(v)) {
                restricted.insert(s);
                s.erase(v);
                on.insert(s);
                changed.insert(s);
            } else {
                off.insert(s);
                s.insert(v);
                changed.insert(s);
            }
        }
        CHECK(familyOf(m, *m.onset(fa, v)) == on);
        CHECK(familyOf(m, *m.offset(fa, v)) == off);
        CHECK(familyOf(m, *m.change(fa, v)) == changed);
        CHECK(familyOf(m, *m.restrictTo(fa, v)) == restricted);
    }
}

TEST_CASE("children have greater variables and nodes are counted once", "[zbdd]") {
    ZbddManager m(3, 100);
    // {{0,2},{1,2}}: the 2-node is shared.
    const ZbddRef f = build(m, Family{{0, 2}, {1, 2}});
    CHECK(m.countNodes(f) == 3);
    CHECK(m.var(f) == 0);
    CHECK(m.var(m.lo(f)) == 1);
    CHECK(m.hi(f) == m.hi(m.lo(f)));
}

TEST_CASE("the node limit ends an operation with an error, not an abort", "[zbdd]") {
    ZbddManager m(20, 30);
    ZbddRef f = kZbddBase;
    Result<ZbddRef> r = kZbddBase;
    // {∅,{0}}⋈{∅,{1}}⋈... has 2^k sets but k nodes; an exact-k family needs many nodes.
    for (uint32_t v = 0; v < 20 && r.ok(); ++v) {
        r = m.unite(f, *m.single(v));
        if (r.ok())
            r = m.join(f, *r);
        if (r.ok())
            f = *r;
    }
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("node limit of 30") != std::string::npos);
    CHECK(m.liveNodes() <= 30);
}

TEST_CASE("garbage collection keeps the families of its roots", "[zbdd]") {
    std::mt19937 rng(11);
    ZbddManager m(kVars, 1 << 16);
    std::vector<Family> kept;
    std::vector<ZbddRef> roots;
    for (int i = 0; i < 20; ++i) {
        const Family a = randomFamily(rng);
        const ZbddRef f = build(m, a);
        if (i % 2 == 0) {
            kept.push_back(a);
            roots.push_back(f);
        }
    }
    const size_t before = m.liveNodes();
    m.collectGarbage(roots);
    CHECK(m.liveNodes() <= before);
    for (size_t i = 0; i < roots.size(); ++i) {
        CHECK(familyOf(m, roots[i]) == kept[i]);
        CHECK(build(m, kept[i]) == roots[i]); // the unique table was rebuilt
    }
    m.reset();
    CHECK(m.liveNodes() == 2);
}
