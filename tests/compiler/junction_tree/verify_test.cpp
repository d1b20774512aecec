// The verifier accepts a hand-built junction tree and rejects each property broken alone: a
// family outside its clique, the running intersection property, connectivity (a lost parent, a
// cycle), separators that are not intersections, and the collect levels.
#include "compiler/junction_tree/verify_junction_tree.h"

#include "tests/catch.hpp"

using namespace zbddc;

namespace {

// The arrays of junction_tree.h filled in by hand from cliques and parents: separators as
// intersections, depths and heights by walking the parents, variables to their first clique.
JunctionTree makeTree(const std::vector<uint32_t> &domains,
                      const std::vector<std::vector<uint32_t>> &cliques,
                      const std::vector<uint32_t> &parent, const std::vector<uint32_t> &factors) {
    JunctionTree jt;
    jt.domainSizes = domains;
    jt.parent = parent;
    jt.factorClique = factors;
    jt.cliqueStart = {0};
    jt.separatorStart = {0};
    const uint32_t k = static_cast<uint32_t>(cliques.size());
    for (uint32_t c = 0; c < k; ++c) {
        jt.cliqueVars.insert(jt.cliqueVars.end(), cliques[c].begin(), cliques[c].end());
        jt.cliqueStart.push_back(static_cast<uint32_t>(jt.cliqueVars.size()));
        if (parent[c] != kNoClique)
            for (uint32_t v : cliques[c])
                if (std::count(cliques[parent[c]].begin(), cliques[parent[c]].end(), v))
                    jt.separatorVars.push_back(v);
        jt.separatorStart.push_back(static_cast<uint32_t>(jt.separatorVars.size()));
    }
    std::vector<uint32_t> depth(k, 0), height(k, 0);
    for (uint32_t c = 0; c < k; ++c)
        for (uint32_t x = c; parent[x] != kNoClique && depth[c] < k; x = parent[x])
            ++depth[c];
    for (uint32_t c = 0; c < k; ++c)
        for (uint32_t x = c, h = 0; parent[x] != kNoClique && h < k; x = parent[x])
            height[parent[x]] = std::max(height[parent[x]], ++h);
    const uint32_t top = *std::max_element(height.begin(), height.end());
    jt.depthStart = {0};
    jt.collectLevelStart = {0};
    for (uint32_t d = 0; d <= top; ++d) {
        uint32_t end = 0;
        for (uint32_t c = 0; c < k; ++c)
            if (depth[c] <= d)
                end = c + 1;
        jt.depthStart.push_back(end);
        for (uint32_t c = 0; c < k; ++c)
            if (height[c] == d)
                jt.collectOrder.push_back(c);
        jt.collectLevelStart.push_back(static_cast<uint32_t>(jt.collectOrder.size()));
    }
    jt.variableClique.assign(domains.size(), kNoClique);
    for (uint32_t c = k; c-- > 0;)
        for (uint32_t v : cliques[c])
            jt.variableClique[v] = c;
    return jt;
}

// A chain network 0 → 1 → 2 → 3 plus 1 → 4: cliques {0,1} (root), {1,2}, {1,4}, {2,3}.
const std::vector<uint32_t> kDomains{2, 3, 2, 4, 2};
const std::vector<std::vector<uint32_t>> kFamilies{{0}, {0, 1}, {1, 2}, {2, 3}, {1, 4}};

JunctionTree goodTree() {
    return makeTree(kDomains, {{0, 1}, {1, 2}, {1, 4}, {2, 3}}, {kNoClique, 0, 0, 1},
                    {0, 0, 1, 3, 2});
}

std::string problem(const JunctionTree &jt, const std::vector<std::vector<uint32_t>> &scopes) {
    const Status s = verifyJunctionTree(jt, scopes);
    return s ? "" : s.error().message;
}

bool mentions(const std::string &message, const std::string &what) {
    return message.find(what) != std::string::npos;
}

} // namespace

TEST_CASE("verify: a hand-built junction tree passes", "[jt][verify]") {
    CHECK(problem(goodTree(), kFamilies).empty());
}

TEST_CASE("verify: a family outside its clique is rejected", "[jt][verify]") {
    JunctionTree jt = goodTree();
    jt.factorClique[3] = 2; // {2,3} into {1,4}
    CHECK(mentions(problem(jt, kFamilies), "factor 3's scope is not inside its clique 2"));
    jt = goodTree();
    jt.variableClique[3] = 0;
    CHECK(mentions(problem(jt, kFamilies), "variable 3's clique 0 does not contain it"));
}

TEST_CASE("verify: running intersection is checked on its own", "[jt][verify]") {
    // Variable 0 in cliques 0 and 3 but not in clique 1 between them; separators are still
    // the intersections and every family still fits.
    const std::vector<std::vector<uint32_t>> families{{0, 1}, {1, 2}, {0, 3}};
    const JunctionTree jt =
        makeTree({2, 2, 2, 2}, {{0, 1}, {1, 2}, {0, 3}}, {kNoClique, 0, 1}, {0, 1, 2});
    CHECK(mentions(problem(jt, families), "running intersection"));
    CHECK(mentions(problem(jt, families), "variable 0"));
    // The same cliques hung the right way round pass.
    CHECK(problem(makeTree({2, 2, 2, 2}, {{0, 1}, {1, 2}, {0, 3}}, {kNoClique, 0, 0}, {0, 1, 2}),
                  families)
              .empty());
}

TEST_CASE("verify: a disconnected tree or a cycle is rejected", "[jt][verify]") {
    JunctionTree jt = goodTree();
    jt.parent[3] = kNoClique;
    CHECK(mentions(problem(jt, kFamilies), "disconnected"));
    jt = goodTree();
    jt.parent[1] = 3; // 1 → 3 → 1
    CHECK(mentions(problem(jt, kFamilies), "cycle"));
    jt = goodTree();
    jt.parent[0] = 1;
    CHECK(mentions(problem(jt, kFamilies), "(the root) has a parent"));
}

TEST_CASE("verify: separators must be the intersections", "[jt][verify]") {
    JunctionTree jt = goodTree();
    jt.separatorVars[2] = 3; // clique 3's separator {2} becomes {3}
    CHECK(mentions(problem(jt, kFamilies), "is not their intersection"));
    jt = goodTree();
    jt.separatorVars.insert(jt.separatorVars.begin(), 0); // clique 1's {1} becomes {0,1}
    for (size_t c = 2; c < jt.separatorStart.size(); ++c)
        ++jt.separatorStart[c];
    CHECK(mentions(problem(jt, kFamilies), "is not their intersection"));
}

TEST_CASE("verify: the numbering and the levels are checked", "[jt][verify]") {
    // Depth-first numbering: {1,2} with child {2,3} before {1,4}; parents still precede.
    JunctionTree jt =
        makeTree(kDomains, {{0, 1}, {1, 2}, {2, 3}, {1, 4}}, {kNoClique, 0, 1, 0}, {0, 0, 1, 2, 3});
    CHECK(mentions(problem(jt, kFamilies), "not in the range of its depth"));
    jt = goodTree();
    std::swap(jt.collectOrder[0], jt.collectOrder[2]); // a height-1 clique into level 0
    CHECK(mentions(problem(jt, kFamilies), "collect level"));
    jt = goodTree();
    jt.cliqueVars[0] = 1; // clique 0 = {1,1}
    CHECK(mentions(problem(jt, kFamilies), "not ascending and distinct"));
}
