// The pseudo-tree of DPOP: a tree over every agent, each cost function owned by the agent of its
// scope that comes first in the order, with every other agent of the scope among its ancestors
// (the property DPOP's UTIL phase needs), for random networks and random agent maps.
#include "compiler/elimination/pseudo_tree.h"
#include "compiler/elimination/util_program.h"
#include "compiler/elimination/variable_files.h"

#include "tests/catch.hpp"
#include "tests/support/random_networks.h"

#include <random>

using namespace zbddc;

namespace {

bool isAncestor(const PseudoTree &t, uint32_t ancestor, uint32_t a) {
    for (uint32_t p = t.parent[a]; p != kNoAgent; p = t.parent[p])
        if (p == ancestor)
            return true;
    return false;
}

void checkTree(const CostNetwork &net, const PseudoTree &t) {
    uint32_t roots = 0, edges = 0;
    for (uint32_t a = 0; a < t.numAgents; ++a) {
        if (t.parent[a] == kNoAgent)
            ++roots;
        else
            CHECK(t.position[t.parent[a]] > t.position[a]); // parents come later in the order
        edges += static_cast<uint32_t>(t.children[a].size());
    }
    CHECK(roots == 1);
    CHECK(t.parent[t.root()] == kNoAgent);
    CHECK(edges == t.numAgents - 1);
    std::vector<int> owners(net.functions.size(), 0);
    for (uint32_t a = 0; a < t.numAgents; ++a)
        for (uint32_t f : t.functions[a]) {
            ++owners[f];
            for (uint32_t v : net.functions[f].scope) {
                const uint32_t b = t.agentOf[v];
                CHECK((b == a || isAncestor(t, b, a)));
            }
        }
    for (int count : owners)
        CHECK(count == 1);
}

} // namespace

TEST_CASE("the pseudo-tree links every function's agents along one branch", "[dpop]") {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 60; ++trial) {
        const uint32_t n = 2 + rng() % 12;
        CostNetwork net = testing::randomNetwork(rng, n, rng() % 14, 3, 3, 9, false);
        // One agent per variable, or a random map onto fewer agents (every agent used).
        std::vector<uint32_t> agentOf = oneAgentPerVariable(n);
        uint32_t agents = n;
        if (trial % 2) {
            agents = 1 + rng() % n;
            for (uint32_t v = 0; v < n; ++v)
                agentOf[v] = v < agents ? v : rng() % agents;
        }
        INFO("trial " << trial);
        auto tree = buildPseudoTree(net, agentOf, minFillAgentOrder(net, agentOf, agents));
        REQUIRE(tree.ok());
        checkTree(net, *tree);
        std::vector<uint32_t> order(n);
        for (uint32_t v = 0; v < n; ++v)
            order[v] = n - 1 - v;
        auto given = buildPseudoTree(net, agentOf, agentOrderFromVariables(order, agentOf, agents));
        REQUIRE(given.ok());
        checkTree(net, *given);
    }
}

TEST_CASE("a disconnected network still gives one tree", "[dpop]") {
    CostNetwork net;
    net.domainSizes = {2, 2, 2, 2};
    for (std::vector<uint32_t> scope : {std::vector<uint32_t>{0, 1}, {2, 3}}) {
        CostFunction f;
        f.scope = scope;
        f.costs = {0, 1, 1, 0};
        net.functions.push_back(std::move(f));
    }
    auto tree = buildPseudoTree(net, oneAgentPerVariable(4), {0, 1, 2, 3});
    REQUIRE(tree.ok());
    checkTree(net, *tree);
    CHECK(tree->parent[1] == 3); // the first component's root hangs under the next one's
}

TEST_CASE("agent files name the place of what is wrong", "[dpop]") {
    CHECK(parseAgentText("0 0 1 # two agents\n1", "a.txt", 4).value() ==
          std::vector<uint32_t>{0, 0, 1, 1});
    auto tooFew = parseAgentText("0 1\n", "a.txt", 3);
    REQUIRE(!tooFew.ok());
    CHECK(tooFew.error().str().find("a.txt:1:") == 0);
    auto gap = parseAgentText("0 2 2", "a.txt", 3);
    REQUIRE(!gap.ok());
    CHECK(gap.error().message.find("agent 1 owns no variable") != std::string::npos);
    auto word = parseAgentText("0\nx 1", "a.txt", 3);
    REQUIRE(!word.ok());
    CHECK(word.error().str().find("a.txt:2:") == 0);
}

TEST_CASE("a UTIL's work is its join's entries", "[dpop]") {
    // Agent of variable 0 (domain 3) with functions over {0, 1} and {0, 2}: the join spans
    // {0, 1, 2}, 3 * 5 * 4 entries, the UTIL over {1, 2} 20 of them times variable 0's 3 values.
    const std::vector<uint32_t> domains{3, 5, 4};
    CostFunction a, b;
    a.scope = {0, 1};
    a.costs.assign(15, 1);
    b.scope = {0, 2};
    b.costs.assign(12, 2);
    const CostFunction *inputs[] = {&a, &b};
    const UtilProgram util = buildUtilProgram(domains, Semiring::MinSum, inputs, {}, {0},
                                              std::vector<uint32_t>{0, 1, 2});
    REQUIRE(util.program.ops.size() == 1);
    CHECK(utilWork(util) == 60.0);
}
