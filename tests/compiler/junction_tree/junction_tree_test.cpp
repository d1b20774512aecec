// Junction trees of small random networks against brute force: the triangulation is chordal and
// contains the moral graph, the cliques are exactly its maximal cliques, the sizes are the sums
// of the cliques' tables, the root is a centre, and the verifier accepts every tree built.
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/junction_tree_stats.h"
#include "compiler/junction_tree/maximal_cliques.h"
#include "compiler/junction_tree/order_search.h"
#include "compiler/junction_tree/triangulate.h"
#include "compiler/junction_tree/verify_junction_tree.h"

#include "tests/catch.hpp"
#include "tests/support/jt_testing.h"

using namespace zbddc;
using namespace zbddc::testing;

namespace {

const OrderHeuristic kHeuristics[] = {OrderHeuristic::MinFill, OrderHeuristic::WeightedMinFill,
                                      OrderHeuristic::MinWeight, OrderHeuristic::MinDegree};

// Orders to try on one network: every heuristic, randomised ties, and a random permutation
// (whatever the order, the result must be a junction tree).
std::vector<std::vector<uint32_t>> ordersFor(const Factors &f, std::mt19937 &rng) {
    const auto g = buildInteractionGraph(f.domains, f.scopes);
    std::vector<std::vector<uint32_t>> orders;
    for (OrderHeuristic h : kHeuristics) {
        orders.push_back(greedyOrder(g, h));
        orders.push_back(greedyOrder(g, h, 1 + rng() % 1000));
    }
    std::vector<uint32_t> any(f.domains.size());
    for (uint32_t v = 0; v < any.size(); ++v)
        any[v] = v;
    std::shuffle(any.begin(), any.end(), rng);
    orders.push_back(any);
    return orders;
}

// Eccentricity of clique c in the undirected tree, in edges.
uint32_t eccentricity(const JunctionTree &jt, uint32_t c) {
    const uint32_t k = jt.numCliques();
    std::vector<std::vector<uint32_t>> adj(k);
    for (uint32_t x = 1; x < k; ++x) {
        adj[x].push_back(jt.parent[x]);
        adj[jt.parent[x]].push_back(x);
    }
    std::vector<uint32_t> dist(k, UINT32_MAX), queue{c};
    dist[c] = 0;
    for (size_t i = 0; i < queue.size(); ++i)
        for (uint32_t y : adj[queue[i]])
            if (dist[y] == UINT32_MAX) {
                dist[y] = dist[queue[i]] + 1;
                queue.push_back(y);
            }
    return *std::max_element(dist.begin(), dist.end());
}

} // namespace

TEST_CASE("jt: the triangulation is chordal and its maximal cliques are the tree's cliques",
          "[jt]") {
    std::mt19937 rng(11);
    for (int trial = 0; trial < 150; ++trial) {
        const Factors f = randomFamilies(rng, 1 + rng() % 10, 1 + rng() % 4, 4);
        const auto moral = interactionMatrix(f);
        for (const auto &order : ordersFor(f, rng)) {
            INFO("trial " << trial);
            auto t = triangulate(buildInteractionGraph(f.domains, f.scopes), order);
            REQUIRE(t.ok());
            const size_t n = f.domains.size();
            std::vector<std::vector<bool>> filled(n, std::vector<bool>(n, false));
            for (uint32_t v = 0; v < n; ++v)
                for (uint32_t u : t->higherNeighbours(v)) {
                    CHECK(t->position[u] > t->position[v]);
                    filled[u][v] = filled[v][u] = true;
                }
            CHECK(chordalByEnumeration(filled));
            uint64_t added = 0;
            for (uint32_t a = 0; a < n; ++a)
                for (uint32_t b = a + 1; b < n; ++b) {
                    CHECK((!moral[a][b] || filled[a][b])); // the moral graph is kept
                    added += filled[a][b] && !moral[a][b];
                }
            CHECK(t->fillEdges == added);

            const auto expected = maximalCliquesByEnumeration(filled);
            const EliminationCliques ec = maximalCliques(*t);
            std::vector<std::vector<uint32_t>> found;
            for (uint32_t c = 0; c < ec.numCliques(); ++c)
                found.emplace_back(ec.clique(c).begin(), ec.clique(c).end());
            std::sort(found.begin(), found.end());
            CHECK(found == expected);

            auto jt = buildJunctionTree(f.domains, f.scopes, order, /*verify=*/false);
            REQUIRE(jt.ok());
            CHECK(sortedCliques(*jt) == expected);
            CHECK(cliqueGraph(*jt) == filled);
            Status ok = verifyJunctionTree(*jt, f.scopes);
            INFO((ok ? "" : ok.error().message));
            CHECK(ok.ok());
        }
    }
}

TEST_CASE("jt: sizes are the sums over the cliques and separators", "[jt]") {
    std::mt19937 rng(12);
    for (int trial = 0; trial < 100; ++trial) {
        const Factors f = randomFamilies(rng, 1 + rng() % 10, 1 + rng() % 4, 5);
        const auto g = buildInteractionGraph(f.domains, f.scopes);
        for (const auto &order : ordersFor(f, rng)) {
            auto jt = buildJunctionTree(f.domains, f.scopes, order);
            REQUIRE(jt.ok());
            const JunctionTreeStats st = junctionTreeStats(*jt);
            double cliques = 0, largest = 0, separators = 0;
            for (const auto &c : maximalCliquesByEnumeration(cliqueGraph(*jt))) {
                cliques += product(f.domains, c);
                largest = std::max(largest, product(f.domains, c));
            }
            for (uint32_t c = 1; c < jt->numCliques(); ++c) {
                std::vector<uint32_t> meet;
                const auto a = jt->clique(c), b = jt->clique(jt->parent[c]);
                std::set_intersection(a.begin(), a.end(), b.begin(), b.end(),
                                      std::back_inserter(meet));
                separators += product(f.domains, meet);
            }
            CHECK(st.totalCliqueEntries == cliques);
            CHECK(st.largestCliqueEntries == largest);
            CHECK(st.totalSeparatorEntries == separators);
            CHECK(st.cliques == jt->numCliques());
            // What the order search scores an order by is the same number.
            const OrderStats os = analyzeOrder(g, order);
            CHECK(os.totalCliqueEntries == cliques);
            CHECK(os.cliques == jt->numCliques());
        }
    }
}

TEST_CASE("jt: the root is a centre, the numbering breadth-first, the levels by height", "[jt]") {
    std::mt19937 rng(13);
    for (int trial = 0; trial < 100; ++trial) {
        const Factors f = randomFamilies(rng, 1 + rng() % 14, 1 + rng() % 3, 3);
        for (const auto &order : ordersFor(f, rng)) {
            auto jt = buildJunctionTree(f.domains, f.scopes, order);
            REQUIRE(jt.ok());
            const uint32_t k = jt->numCliques();
            uint32_t least = UINT32_MAX;
            for (uint32_t c = 0; c < k; ++c)
                least = std::min(least, eccentricity(*jt, c));
            CHECK(eccentricity(*jt, 0) == least);
            CHECK(jt->height() == least);
            for (uint32_t c = 1; c < k; ++c)
                CHECK(jt->parent[c] < c);
            // Collect order: children before parents; the root last.
            std::vector<uint32_t> at(k);
            for (uint32_t i = 0; i < k; ++i)
                at[jt->collectOrder[i]] = i;
            for (uint32_t c = 1; c < k; ++c)
                CHECK(at[c] < at[jt->parent[c]]);
            CHECK(jt->collectOrder.back() == 0);
            // Each variable's clique is a smallest one containing it.
            for (uint32_t v = 0; v < jt->numVariables(); ++v)
                for (uint32_t c = 0; c < k; ++c) {
                    const auto vars = jt->clique(c);
                    if (std::binary_search(vars.begin(), vars.end(), v))
                        CHECK(jt->entries(jt->clique(jt->variableClique[v])) <= jt->entries(vars));
                }
        }
    }
}

TEST_CASE("jt: disconnected factors and empty scopes make one tree", "[jt]") {
    // Two chains {0,1,2} and {3,4}, an isolated variable 5, and a constant factor.
    const std::vector<uint32_t> domains{2, 3, 2, 4, 2, 5};
    const std::vector<std::vector<uint32_t>> scopes{{0, 1}, {1, 2}, {3, 4}, {}};
    for (OrderHeuristic h : kHeuristics) {
        const auto order = greedyOrder(buildInteractionGraph(domains, scopes), h);
        auto jt = buildJunctionTree(domains, scopes, order);
        REQUIRE(jt.ok());
        CHECK(verifyJunctionTree(*jt, scopes).ok());
        CHECK(jt->numCliques() == 4); // {0,1} {1,2} {3,4} {5}
        uint32_t empty = 0;
        for (uint32_t c = 1; c < jt->numCliques(); ++c)
            empty += jt->separator(c).empty();
        CHECK(empty == 2);
        CHECK(jt->factorClique[3] == 0); // the constant goes to the root
    }
    auto none = buildJunctionTree({}, {}, {});
    REQUIRE(none.ok());
    CHECK(none->numCliques() == 0);
    CHECK(verifyJunctionTree(*none, {}).ok());
}

TEST_CASE("jt: bad inputs are errors, not crashes", "[jt]") {
    CHECK(buildJunctionTree({2, 2}, {{0, 2}}, {0, 1}).error().message ==
          "factor 0 names unknown variable 2");
    CHECK(buildJunctionTree({2, 2}, {{0, 1}}, {0, 0}).error().message ==
          "order names variable 0 twice");
}

TEST_CASE("jt: the order search never does worse than plain min-fill", "[jt][search]") {
    std::mt19937 rng(14);
    for (int trial = 0; trial < 60; ++trial) {
        const Factors f = randomFamilies(rng, 2 + rng() % 30, 1 + rng() % 4, 6);
        const auto g = buildInteractionGraph(f.domains, f.scopes);
        OrderSearchOptions options;
        options.maxRuns = 24;
        options.seed = 1 + trial;
        const OrderSearchResult r = searchOrder(g, options);
        REQUIRE(checkOrder(r.order, f.domains.size()).ok());
        CHECK(r.runs >= options.heuristics.size());
        CHECK(r.runs <= options.maxRuns);
        CHECK(r.stats.totalCliqueEntries == analyzeOrder(g, r.order).totalCliqueEntries);
        for (OrderHeuristic h : kHeuristics)
            CHECK(r.stats.totalCliqueEntries <=
                  analyzeOrder(g, greedyOrder(g, h)).totalCliqueEntries);
        auto jt = buildJunctionTree(f.domains, f.scopes, r.order);
        REQUIRE(jt.ok());
        CHECK(junctionTreeStats(*jt).totalCliqueEntries == r.stats.totalCliqueEntries);
    }
    // A time limit of zero still makes the deterministic runs.
    const Factors f = randomFamilies(rng, 20, 3, 4);
    OrderSearchOptions quick;
    quick.timeLimitMs = 0;
    CHECK(searchOrder(buildInteractionGraph(f.domains, f.scopes), quick).runs ==
          quick.heuristics.size());
    // A run worth next to nothing (msPerEntry) stops the search after them too; one worth a
    // minute a clique entry leaves it to the run bound.
    OrderSearchOptions cheap;
    cheap.timeLimitMs = 1e9;
    cheap.msPerEntry = 1e-15;
    CHECK(searchOrder(buildInteractionGraph(f.domains, f.scopes), cheap).runs ==
          cheap.heuristics.size());
    OrderSearchOptions dear = cheap;
    dear.msPerEntry = 6e4;
    dear.maxRuns = 24;
    CHECK(searchOrder(buildInteractionGraph(f.domains, f.scopes), dear).runs == dear.maxRuns);
    // Likewise per clique: a run of many cheap cliques is worth searching for.
    OrderSearchOptions perClique = cheap;
    perClique.msPerClique = 6e4;
    perClique.maxRuns = 24;
    CHECK(searchOrder(buildInteractionGraph(f.domains, f.scopes), perClique).runs ==
          perClique.maxRuns);
}

TEST_CASE("jt: the search with slack never does worse than the tie-only search it extends, and "
          "its trees are junction trees",
          "[jt][search]") {
    std::mt19937 rng(15);
    uint32_t better = 0;
    for (int trial = 0; trial < 60; ++trial) {
        INFO("trial " << trial);
        const Factors f = randomFamilies(rng, 10 + rng() % 40, 2 + rng() % 4, 6);
        const auto g = buildInteractionGraph(f.domains, f.scopes);
        OrderSearchOptions tiesOnly; // the search before slack: 64 runs, ties broken at random
        tiesOnly.maxRuns = 64;
        tiesOnly.slacks = {0};
        tiesOnly.timeLimitMs = 1e9; // the runs bound both, so the test is deterministic
        OrderSearchOptions withSlack;
        withSlack.timeLimitMs = 1e9;
        const OrderSearchResult old = searchOrder(g, tiesOnly), now = searchOrder(g, withSlack);
        REQUIRE(now.runs == withSlack.maxRuns);
        CHECK(now.stats.totalCliqueEntries <= old.stats.totalCliqueEntries);
        better += now.stats.totalCliqueEntries < old.stats.totalCliqueEntries;
        auto jt = buildJunctionTree(f.domains, f.scopes, now.order, /*verify=*/true);
        REQUIRE(jt.ok());
        CHECK(junctionTreeStats(*jt).totalCliqueEntries == now.stats.totalCliqueEntries);
        for (double slack : {0.5, 1.0}) // each slack run is an order of every variable
            for (OrderHeuristic h : kHeuristics)
                CHECK(checkOrder(greedyOrder(g, h, 1 + trial, slack), f.domains.size()).ok());
    }
    CHECK(better > 0); // the slack finds smaller trees on some of these graphs
}
