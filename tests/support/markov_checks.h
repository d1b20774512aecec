// One Markov network case's PR, MAR and MPE against brute force (markov_brute_force.h), for the
// junction-tree tests on every executor.
#pragma once

#include "compiler/elimination/elimination_order.h"
#include "compiler/frontends/factor_model/factor_model.h"
#include "runtime/evidence.h"
#include "runtime/junction_tree/factor_model_route.h"
#include "runtime/tasks.h"

#include "tests/catch.hpp"
#include "tests/support/markov_brute_force.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace zbddc::testing {

// The network read back from its UAI text, on the junction-tree route: min-fill's order, or with
// an odd seed a shuffled one (any order makes a junction tree).
inline JunctionTreeModel markovTree(const MarkovNet &net, JunctionTreeOptions run, uint64_t seed) {
    auto model = parseUaiFactorModel(net.uaiText(), "random.uai");
    REQUIRE(model.ok());
    const InteractionGraph graph = buildInteractionGraph(model->domainSizes, model->sortedScopes());
    std::vector<uint32_t> order = greedyOrder(graph, OrderHeuristic::MinFill);
    std::mt19937 rng(static_cast<uint32_t>(seed));
    if (seed % 2)
        std::shuffle(order.begin(), order.end(), rng);
    auto tree = openFactorModelJunctionTree(std::move(*model), order, {run, 0});
    REQUIRE(tree.ok());
    return std::move(*tree);
}

inline Evidence evidenceOf(const std::vector<int> &e) {
    Evidence ev;
    for (int s : e)
        ev.states.push_back(s < 0 ? kNone : static_cast<uint32_t>(s));
    return ev;
}

// The case's answers (each task run alone) against brute force; an impossible case (Z(e) = 0)
// answers PR with log10 -inf and fails MAR and MPE.
inline void checkMarkovCase(const MarkovNet &net, const std::vector<int> &e,
                            const Result<TaskResult> &pr, const Result<TaskResult> &mar,
                            const Result<TaskResult> &mpe) {
    const MarkovAnswers want = bruteForceMarkov(net, e);
    REQUIRE(pr.ok());
    if (std::isinf(want.log10Z)) {
        CHECK(std::isinf(pr->log10));
        CHECK(pr->log10 < 0);
        CHECK_FALSE(mar.ok());
        CHECK_FALSE(mpe.ok());
        return;
    }
    CHECK(pr->log10 == Approx(want.log10Z).margin(1e-9 * (1 + std::fabs(want.log10Z))));
    REQUIRE(mar.ok());
    for (size_t v = 0; v < net.domains.size(); ++v)
        for (size_t s = 0; s < net.domains[v]; ++s)
            CHECK(mar->marginals[v][s] == Approx(want.marginals[v][s]).margin(1e-10));
    REQUIRE(mpe.ok());
    REQUIRE(mpe->assignment.size() == net.domains.size());
    for (size_t v = 0; v < e.size(); ++v)
        if (e[v] >= 0)
            CHECK(mpe->assignment[v] == static_cast<uint32_t>(e[v]));
    // The assignment's own weight, recomputed from the generated tables, is the optimum.
    CHECK(markovLog10Weight(net, mpe->assignment) ==
          Approx(want.log10Mpe).margin(1e-9 * (1 + std::fabs(want.log10Mpe))));
    CHECK(mpe->log10 == Approx(want.log10Mpe).margin(1e-9 * (1 + std::fabs(want.log10Mpe))));
}

} // namespace zbddc::testing
