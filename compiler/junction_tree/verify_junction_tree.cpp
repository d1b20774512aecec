#include "compiler/junction_tree/verify_junction_tree.h"

#include <algorithm>
#include <iterator>
#include <string>

namespace zbddc {

namespace {

std::string str(uint32_t x) {
    return std::to_string(x);
}

bool offsetsValid(const std::vector<uint32_t> &start, size_t count, size_t total) {
    if (start.size() != count + 1 || start.front() != 0 || start.back() != total)
        return false;
    return std::is_sorted(start.begin(), start.end());
}

Status checkShape(const JunctionTree &jt, size_t factors) {
    const uint32_t k = jt.numCliques(), n = jt.numVariables();
    if (k == 0)
        return n == 0 ? Status(Ok{}) : error("no cliques for " + str(n) + " variables");
    if (!offsetsValid(jt.cliqueStart, k, jt.cliqueVars.size()))
        return error("clique offsets do not match " + str(k) + " cliques");
    if (!offsetsValid(jt.separatorStart, k, jt.separatorVars.size()))
        return error("separator offsets do not match " + str(k) + " cliques");
    if (jt.factorClique.size() != factors)
        return error("factorClique has " + str(jt.factorClique.size()) + " entries for " +
                     str(static_cast<uint32_t>(factors)) + " factors");
    if (jt.variableClique.size() != n)
        return error("variableClique has " + str(jt.variableClique.size()) + " entries for " +
                     str(n) + " variables");
    for (uint32_t c = 0; c < k; ++c) {
        const auto vars = jt.clique(c);
        for (size_t i = 0; i < vars.size(); ++i) {
            if (vars[i] >= n)
                return error("clique " + str(c) + " names unknown variable " + str(vars[i]));
            if (i > 0 && vars[i - 1] >= vars[i])
                return error("clique " + str(c) + "'s variables are not ascending and distinct");
        }
        if (jt.parent[c] != kNoClique && jt.parent[c] >= k)
            return error("clique " + str(c) + " has unknown parent " + str(jt.parent[c]));
    }
    for (uint32_t f = 0; f < factors; ++f)
        if (jt.factorClique[f] >= k)
            return error("factor " + str(f) + " is assigned to no clique");
    for (uint32_t v = 0; v < n; ++v)
        if (jt.variableClique[v] >= k)
            return error("variable " + str(v) + " has no clique");
    return Ok{};
}

// One tree: only clique 0 lacks a parent, and every parent chain ends there without a cycle.
Status checkTree(const JunctionTree &jt) {
    const uint32_t k = jt.numCliques();
    if (jt.parent[0] != kNoClique)
        return error("clique 0 (the root) has a parent");
    // state: 0 unknown, 1 on the current chain, 2 known to reach the root.
    std::vector<uint8_t> state(k, 0);
    state[0] = 2;
    std::vector<uint32_t> chain;
    for (uint32_t c = 1; c < k; ++c) {
        uint32_t x = c;
        chain.clear();
        while (state[x] == 0) {
            if (jt.parent[x] == kNoClique)
                return error("clique " + str(x) +
                             " has no parent and is not the root: the tree is disconnected");
            state[x] = 1;
            chain.push_back(x);
            x = jt.parent[x];
        }
        if (state[x] == 1)
            return error("the parents of clique " + str(x) + " form a cycle");
        for (uint32_t y : chain)
            state[y] = 2;
    }
    for (uint32_t c = 1; c < k; ++c)
        if (jt.parent[c] >= c)
            return error("clique " + str(c) + "'s parent " + str(jt.parent[c]) +
                         " comes after it: the numbering is not breadth-first");
    // Depth ranges: depth nondecreasing with the id, each range one depth.
    std::vector<uint32_t> depth(k, 0);
    for (uint32_t c = 1; c < k; ++c)
        depth[c] = depth[jt.parent[c]] + 1;
    const uint32_t height = *std::max_element(depth.begin(), depth.end());
    if (!offsetsValid(jt.depthStart, size_t{height} + 1, k))
        return error("depthStart does not hold " + str(height + 1) + " depths");
    for (uint32_t d = 0; d <= height; ++d)
        for (uint32_t c = jt.depthStart[d]; c < jt.depthStart[d + 1]; ++c)
            if (depth[c] != d)
                return error("clique " + str(c) + " is not in the range of its depth");
    return Ok{};
}

Status checkSeparators(const JunctionTree &jt) {
    if (!jt.separator(0).empty())
        return error("the root has a separator");
    std::vector<uint32_t> meet;
    for (uint32_t c = 1; c < jt.numCliques(); ++c) {
        const auto a = jt.clique(c), b = jt.clique(jt.parent[c]), s = jt.separator(c);
        meet.clear();
        std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(meet));
        if (!std::equal(meet.begin(), meet.end(), s.begin(), s.end()))
            return error("the separator of cliques " + str(c) + " and " + str(jt.parent[c]) +
                         " is not their intersection");
    }
    return Ok{};
}

// The cliques holding v span a forest with (cliques - edges) components: one means connected.
Status checkRunningIntersection(const JunctionTree &jt) {
    const uint32_t n = jt.numVariables();
    std::vector<int64_t> cliques(n, 0), edges(n, 0);
    for (uint32_t c = 0; c < jt.numCliques(); ++c) {
        for (uint32_t v : jt.clique(c))
            ++cliques[v];
        if (c > 0) {
            const auto a = jt.clique(c), b = jt.clique(jt.parent[c]);
            std::vector<uint32_t> meet;
            std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(meet));
            for (uint32_t v : meet)
                ++edges[v];
        }
    }
    for (uint32_t v = 0; v < n; ++v) {
        if (cliques[v] == 0)
            return error("variable " + str(v) + " is in no clique");
        if (cliques[v] - edges[v] != 1)
            return error("running intersection fails: the cliques containing variable " + str(v) +
                         " are not connected");
    }
    return Ok{};
}

Status checkFamilies(const JunctionTree &jt, const std::vector<std::vector<uint32_t>> &scopes) {
    for (uint32_t f = 0; f < scopes.size(); ++f) {
        const auto c = jt.clique(jt.factorClique[f]);
        std::vector<uint32_t> scope = scopes[f];
        std::sort(scope.begin(), scope.end());
        if (!std::includes(c.begin(), c.end(), scope.begin(), scope.end()))
            return error("factor " + str(f) + "'s scope is not inside its clique " +
                         str(jt.factorClique[f]));
    }
    for (uint32_t v = 0; v < jt.numVariables(); ++v) {
        const auto c = jt.clique(jt.variableClique[v]);
        if (!std::binary_search(c.begin(), c.end(), v))
            return error("variable " + str(v) + "'s clique " + str(jt.variableClique[v]) +
                         " does not contain it");
    }
    return Ok{};
}

Status checkCollect(const JunctionTree &jt) {
    const uint32_t k = jt.numCliques();
    std::vector<uint32_t> height(k, 0);
    for (uint32_t c = k; c-- > 1;)
        height[jt.parent[c]] = std::max(height[jt.parent[c]], height[c] + 1);
    if (!offsetsValid(jt.collectLevelStart, size_t{height[0]} + 1, k) ||
        jt.collectOrder.size() != k)
        return error("the collect levels do not hold " + str(height[0] + 1) + " heights");
    std::vector<bool> seen(k, false);
    for (uint32_t h = 0; h <= height[0]; ++h)
        for (uint32_t c : jt.collectLevel(h)) {
            if (c >= k || seen[c])
                return error("collectOrder is not a permutation of the cliques");
            seen[c] = true;
            if (height[c] != h)
                return error("clique " + str(c) + " of height " + str(height[c]) +
                             " is in collect level " + str(h));
        }
    return Ok{};
}

} // namespace

Status verifyJunctionTree(const JunctionTree &jt,
                          const std::vector<std::vector<uint32_t>> &factorScopes) {
    if (Status s = checkShape(jt, factorScopes.size()); !s || jt.numCliques() == 0)
        return s;
    for (Status (*check)(const JunctionTree &) :
         {checkTree, checkSeparators, checkRunningIntersection, checkCollect})
        if (Status s = check(jt); !s)
            return s;
    return checkFamilies(jt, factorScopes);
}

} // namespace zbddc
