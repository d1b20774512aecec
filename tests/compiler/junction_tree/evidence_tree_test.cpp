// One case's own junction tree (evidence_tree.h) on random networks and evidence: it verifies for
// the families without their observed variables, each observed variable sits alone, the choice
// by cost never keeps a tree with more entries than the network's, and the factor relevance
// (factor_relevance.h) against a search written here over the same factors.
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/evidence_tree.h"
#include "compiler/junction_tree/factor_relevance.h"
#include "compiler/junction_tree/order_search.h"
#include "compiler/junction_tree/verify_junction_tree.h"

#include "tests/catch.hpp"
#include "tests/support/jt_testing.h"

using namespace zbddc;
using namespace zbddc::testing;

namespace {

// Each variable observed (in some state below its domain) with probability `fraction`.
std::vector<uint32_t> randomStates(const Factors &f, std::mt19937 &rng, double fraction) {
    std::vector<uint32_t> states(f.domains.size(), UINT32_MAX);
    for (uint32_t v = 0; v < states.size(); ++v)
        if (std::uniform_real_distribution<double>(0, 1)(rng) < fraction)
            states[v] = static_cast<uint32_t>(rng() % f.domains[v]);
    return states;
}

std::vector<std::vector<uint32_t>> withoutObserved(const Factors &f,
                                                   const std::vector<uint32_t> &states) {
    std::vector<std::vector<uint32_t>> scopes = f.scopes;
    for (auto &s : scopes)
        std::erase_if(s, [&](uint32_t v) { return states[v] != UINT32_MAX; });
    return scopes;
}

} // namespace

TEST_CASE("jt case tree: a junction tree of the sliced families, observed variables alone",
          "[jt][evidence]") {
    std::mt19937 rng(101);
    for (int trial = 0; trial < 300; ++trial) {
        INFO("trial " << trial);
        const Factors f = randomFamilies(rng, 1 + rng() % 14, 1 + rng() % 4, 4);
        auto network = buildJunctionTree(
            f.domains, f.scopes, searchOrder(buildInteractionGraph(f.domains, f.scopes)).order,
            /*verify=*/true);
        REQUIRE(network.ok());
        const std::vector<uint32_t> states = randomStates(f, rng, 0.1 * (trial % 8));
        auto own = caseJunctionTree(*network, f.scopes, states, CaseTree::Evidence);
        REQUIRE(own.ok());
        REQUIRE(own->has_value());
        const JunctionTree &tree = **own;
        CHECK(verifyJunctionTree(tree, withoutObserved(f, states)).ok());
        for (uint32_t v = 0; v < states.size(); ++v)
            if (states[v] != UINT32_MAX) {
                INFO("observed variable " << v);
                const auto clique = tree.clique(tree.variableClique[v]);
                CHECK(std::vector<uint32_t>(clique.begin(), clique.end()) ==
                      std::vector<uint32_t>{v});
            }

        auto byCost = caseJunctionTree(*network, f.scopes, states, CaseTree::ByCost);
        REQUIRE(byCost.ok());
        if (byCost->has_value())
            CHECK(unobservedCliqueEntries(**byCost, states) <
                  unobservedCliqueEntries(*network, states));
        auto kept = caseJunctionTree(*network, f.scopes, states, CaseTree::Network);
        REQUIRE(kept.ok());
        CHECK_FALSE(kept->has_value());
    }
}

TEST_CASE("jt case tree: unobserved clique entries count each clique without its observed "
          "variables",
          "[jt][evidence]") {
    // One clique {0, 1, 2} of domains 2, 3, 4 (a chain of families 0 → 1 → 2 would split it).
    const std::vector<uint32_t> domains{2, 3, 4};
    auto tree = buildJunctionTree(domains, {{0, 1, 2}}, {0, 1, 2}, /*verify=*/true);
    REQUIRE(tree.ok());
    CHECK(unobservedCliqueEntries(*tree, {UINT32_MAX, UINT32_MAX, UINT32_MAX}) == 24);
    CHECK(unobservedCliqueEntries(*tree, {1, UINT32_MAX, UINT32_MAX}) == 12);
    CHECK(unobservedCliqueEntries(*tree, {1, 0, 3}) == 1);
}

TEST_CASE("jt case tree: a case that does not match the tree is an error", "[jt][evidence]") {
    auto tree = buildJunctionTree({2, 2}, {{0}, {0, 1}}, {0, 1});
    REQUIRE(tree.ok());
    CHECK_FALSE(caseJunctionTree(*tree, {{0}, {0, 1}}, {UINT32_MAX}, CaseTree::Evidence).ok());
    CHECK_FALSE(caseJunctionTree(*tree, {{0}}, {UINT32_MAX, 0}, CaseTree::Evidence).ok());
}

TEST_CASE("jt relevance: the factors linked to the kept variables through summed ones",
          "[jt][evidence]") {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 300; ++trial) {
        INFO("trial " << trial);
        const uint32_t n = 1 + rng() % 10;
        std::vector<std::vector<uint32_t>> scopes(rng() % 8);
        for (auto &s : scopes) {
            for (uint32_t v = 0; v < n; ++v)
                if (rng() % 4 == 0)
                    s.push_back(v);
        }
        std::vector<uint32_t> keep;
        for (uint32_t v = 0; v < n; ++v)
            if (rng() % 5 == 0)
                keep.push_back(v);
        // Oracle: grow the set of relevant factors until no factor shares a summed-out
        // variable with it, starting from those that hold a kept variable.
        auto kept = [&](uint32_t v) {
            return std::find(keep.begin(), keep.end(), v) != keep.end();
        };
        std::vector<bool> expected(scopes.size(), false);
        for (size_t f = 0; f < scopes.size(); ++f)
            expected[f] = std::any_of(scopes[f].begin(), scopes[f].end(), kept);
        for (bool grew = true; grew;) {
            grew = false;
            for (size_t f = 0; f < scopes.size(); ++f)
                for (size_t g = 0; g < scopes.size() && !expected[f]; ++g)
                    if (expected[g])
                        for (uint32_t v : scopes[f])
                            if (!kept(v) &&
                                std::find(scopes[g].begin(), scopes[g].end(), v) != scopes[g].end())
                                expected[f] = grew = true;
        }
        CHECK(linkedToKept(scopes, keep) == expected);
    }
}
