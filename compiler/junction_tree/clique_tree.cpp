#include "compiler/junction_tree/clique_tree.h"

#include <algorithm>
#include <iterator>

namespace zbddc {

namespace {

// The undirected clique forest as adjacency lists in one array.
struct Forest {
    std::vector<uint32_t> start, adjacent;

    std::span<const uint32_t> neighbours(uint32_t c) const {
        return {adjacent.data() + start[c], start[c + 1] - start[c]};
    }
};

Forest eliminationForest(const Triangulation &t, const EliminationCliques &ec) {
    const uint32_t k = ec.numCliques();
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    for (uint32_t c = 0; c < k; ++c)
        if (const uint32_t p = t.firstHigher(ec.top[c]); p != UINT32_MAX) {
            edges.emplace_back(c, ec.cliqueOf[p]);
            edges.emplace_back(ec.cliqueOf[p], c);
        }
    std::sort(edges.begin(), edges.end());
    Forest f;
    f.start.assign(k + 1, 0);
    for (auto [a, b] : edges) {
        ++f.start[a + 1];
        f.adjacent.push_back(b);
    }
    for (uint32_t c = 0; c < k; ++c)
        f.start[c + 1] += f.start[c];
    return f;
}

// Breadth-first distances from `from` within its component; returns the visited cliques in
// order (the last one is a farthest).
std::vector<uint32_t> bfs(const Forest &f, uint32_t from, std::vector<uint32_t> &dist,
                          std::vector<uint32_t> &via) {
    std::vector<uint32_t> seen{from};
    dist[from] = 0;
    via[from] = kNoClique;
    for (size_t i = 0; i < seen.size(); ++i)
        for (uint32_t b : f.neighbours(seen[i]))
            if (b != via[seen[i]]) {
                dist[b] = dist[seen[i]] + 1;
                via[b] = seen[i];
                seen.push_back(b);
            }
    return seen;
}

struct Centre {
    uint32_t clique;
    uint32_t radius;
};

// The centre of the component of `any`: the middle of a longest path, found by two searches.
Centre centreOf(const Forest &f, uint32_t any, const std::vector<double> &entries,
                std::vector<uint32_t> &dist, std::vector<uint32_t> &via) {
    const uint32_t a = bfs(f, any, dist, via).back();
    const uint32_t b = bfs(f, a, dist, via).back();
    const uint32_t diameter = dist[b];
    uint32_t c = b;
    while (dist[c] > (diameter + 1) / 2) // walk from b back towards a
        c = via[c];
    if (diameter % 2 == 1 && entries[via[c]] > entries[c])
        c = via[c]; // two centres: the larger clique
    return {c, (diameter + 1) / 2};
}

} // namespace

JunctionTree buildCliqueTree(const std::vector<uint32_t> &domainSizes, const Triangulation &t,
                             const EliminationCliques &ec,
                             const std::vector<std::vector<uint32_t>> &scopes) {
    JunctionTree jt;
    jt.domainSizes = domainSizes;
    jt.eliminationOrder = t.order;
    const uint32_t k = ec.numCliques();
    if (k == 0) { // no variables: no cliques, and nowhere to put a (constant) factor
        jt.factorClique.assign(scopes.size(), kNoClique);
        return jt;
    }
    std::vector<double> entries(k);
    for (uint32_t c = 0; c < k; ++c)
        entries[c] = jt.entries(ec.clique(c));

    // Each component's centre; the deepest component's centre is the root, the others hang
    // below it.
    const Forest f = eliminationForest(t, ec);
    std::vector<uint32_t> dist(k, UINT32_MAX), via(k, kNoClique);
    std::vector<Centre> centres;
    for (uint32_t c = 0; c < k; ++c)
        if (dist[c] == UINT32_MAX) // a component not searched yet
            centres.push_back(centreOf(f, c, entries, dist, via));
    std::stable_sort(centres.begin(), centres.end(), [&](const Centre &x, const Centre &y) {
        return x.radius != y.radius ? x.radius > y.radius : entries[x.clique] > entries[y.clique];
    });

    // Breadth-first numbering from the root.
    std::vector<uint32_t> newId(k, kNoClique), oldOf, parentOld;
    auto visit = [&](uint32_t c, uint32_t from) {
        newId[c] = static_cast<uint32_t>(oldOf.size());
        oldOf.push_back(c);
        parentOld.push_back(from);
    };
    visit(centres[0].clique, kNoClique);
    for (size_t i = 0; i < oldOf.size(); ++i) {
        const uint32_t c = oldOf[i];
        for (uint32_t b : f.neighbours(c))
            if (newId[b] == kNoClique)
                visit(b, c);
        if (i == 0)
            for (size_t j = 1; j < centres.size(); ++j)
                visit(centres[j].clique, c);
    }

    jt.cliqueStart.push_back(0);
    jt.separatorStart.push_back(0);
    jt.depthStart.push_back(0);
    std::vector<uint32_t> depth(k, 0);
    for (uint32_t id = 0; id < k; ++id) {
        const auto vars = ec.clique(oldOf[id]);
        jt.cliqueVars.insert(jt.cliqueVars.end(), vars.begin(), vars.end());
        jt.cliqueStart.push_back(static_cast<uint32_t>(jt.cliqueVars.size()));
        const uint32_t p = parentOld[id] == kNoClique ? kNoClique : newId[parentOld[id]];
        jt.parent.push_back(p);
        if (p != kNoClique) {
            const auto pv = jt.clique(p);
            std::set_intersection(vars.begin(), vars.end(), pv.begin(), pv.end(),
                                  std::back_inserter(jt.separatorVars));
            depth[id] = depth[p] + 1;
            if (depth[id] != depth[id - 1])
                jt.depthStart.push_back(id);
        }
        jt.separatorStart.push_back(static_cast<uint32_t>(jt.separatorVars.size()));
    }
    jt.depthStart.push_back(k);

    // Heights (children have larger ids), then the cliques grouped by height.
    std::vector<uint32_t> height(k, 0);
    for (uint32_t id = k; id-- > 1;)
        height[jt.parent[id]] = std::max(height[jt.parent[id]], height[id] + 1);
    const uint32_t levels = height[0] + 1;
    jt.collectLevelStart.assign(levels + 1, 0);
    for (uint32_t id = 0; id < k; ++id)
        ++jt.collectLevelStart[height[id] + 1];
    for (uint32_t h = 0; h < levels; ++h)
        jt.collectLevelStart[h + 1] += jt.collectLevelStart[h];
    jt.collectOrder.resize(k);
    std::vector<uint32_t> fill(jt.collectLevelStart.begin(), jt.collectLevelStart.end() - 1);
    for (uint32_t id = 0; id < k; ++id)
        jt.collectOrder[fill[height[id]]++] = id;

    // A factor goes to the clique of its first-eliminated variable, whose elimination clique
    // holds the whole scope (the other variables are its neighbours, eliminated later).
    for (const auto &scope : scopes) {
        if (scope.empty()) {
            jt.factorClique.push_back(0);
            continue;
        }
        const uint32_t first =
            *std::min_element(scope.begin(), scope.end(), [&](uint32_t a, uint32_t b) {
                return t.position[a] < t.position[b];
            });
        jt.factorClique.push_back(newId[ec.cliqueOf[first]]);
    }
    jt.variableClique.assign(domainSizes.size(), kNoClique);
    for (uint32_t id = 0; id < k; ++id)
        for (uint32_t v : jt.clique(id)) {
            const uint32_t &best = jt.variableClique[v];
            if (best == kNoClique || entries[oldOf[id]] < entries[oldOf[best]])
                jt.variableClique[v] = id;
        }
    return jt;
}

} // namespace zbddc
