// Loopy belief propagation (runtime/loopy) against oracles that share no code with it: the
// tests' own variable elimination on random polytrees and chains (where BP is exact: marginals,
// P(e) through the Bethe free energy, and the MPE value), brute force on small cost networks,
// and on loopy grids the fixed-point equations themselves (every message equals its update within
// the tolerance), for both schedules, with damping, over evidence batches split across threads.
#include "compiler/loopy/factor_graph.h"
#include "runtime/loopy/loopy_tasks.h"

#include "tests/catch.hpp"
#include "tests/support/bn_elimination.h"
#include "tests/support/loopy_testing.h"
#include "tests/support/random_networks.h"

#include <cmath>
#include <random>

using namespace zbddc;
using namespace zbddc::testing;

namespace {

// An Ising-like pairwise grid with random fields and couplings of strength up to `coupling`.
FactorGraph grid(std::mt19937 &rng, uint32_t side, uint32_t labels, double coupling) {
    FactorGraph g;
    g.file = "grid";
    g.domainSizes.assign(side * side, labels);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (uint32_t v = 0; v < side * side; ++v) {
        LoopyFactor f{{v}, std::vector<double>(labels)};
        for (double &x : f.logValues)
            x = 0.5 * u(rng);
        g.factors.push_back(std::move(f));
    }
    for (uint32_t r = 0; r < side; ++r)
        for (uint32_t c = 0; c < side; ++c)
            for (uint32_t other : {c + 1 < side ? r * side + c + 1 : UINT32_MAX,
                                   r + 1 < side ? (r + 1) * side + c : UINT32_MAX}) {
                if (other == UINT32_MAX)
                    continue;
                LoopyFactor f{{r * side + c, other}, std::vector<double>(labels * labels)};
                const double j = coupling * u(rng);
                for (uint32_t a = 0; a < labels; ++a)
                    for (uint32_t b = 0; b < labels; ++b)
                        f.logValues[a * labels + b] = a == b ? j : -j;
                g.factors.push_back(std::move(f));
            }
    REQUIRE(finishFactorGraph(g).ok());
    return g;
}

// The largest difference between any message and the update the current messages give it.
double fixedPointGap(const FactorGraph &g, const LoopyCase &c, const Evidence &e,
                     LoopySemiring semiring) {
    VariableSums sums{std::vector<double>(g.stateOffset.back()),
                      std::vector<uint32_t>(g.stateOffset.back())};
    sumIntoVariables(g, e, c.messages, 0, uint32_t(g.numVariables()), sums);
    double worst = 0;
    std::vector<double> out;
    for (uint32_t f = 0; f < g.factors.size(); ++f) {
        const uint64_t base = g.messageOffset[g.factorEdgeStart[f]];
        out.resize(g.messageOffset[g.factorEdgeStart[f + 1]] - base);
        REQUIRE(updateFactorMessages(g, f, sums, c.messages, semiring, out));
        for (uint32_t e2 = g.factorEdgeStart[f]; e2 < g.factorEdgeStart[f + 1]; ++e2) {
            const uint64_t at = g.messageOffset[e2], d = g.messageOffset[e2 + 1] - at;
            worst = std::max(worst, messageResidual({c.messages.data() + at, d},
                                                    {out.data() + at - base, d}, semiring));
        }
    }
    return worst;
}

} // namespace

TEST_CASE("On polytrees and chains LBP equals variable elimination (MAR, PR, MPE)", "[loopy]") {
    std::mt19937 rng(15);
    for (int trial = 0; trial < 24; ++trial) {
        const BayesNet net = trialPolytree(rng, trial);
        auto graph = factorGraphOfNetwork(net);
        REQUIRE(graph.ok());
        const auto [evidence, cases] = sampledCases(net, rng, 3);
        LoopyOptions o;
        o.tolerance = 1e-13;
        o.updateOrder = trial % 2 ? LoopyUpdateOrder::Residual : LoopyUpdateOrder::Flooding;
        o.threads = 1 + trial % 3;
        const auto mar = runLoopyTasks(*graph, Task::Mar, cases, o);
        const auto pr = runLoopyTasks(*graph, Task::Pr, cases, o);
        const auto mpe = runLoopyTasks(*graph, Task::Mpe, cases, o);
        for (size_t c = 0; c < cases.size(); ++c) {
            REQUIRE(mar[c].ok());
            REQUIRE(pr[c].ok());
            REQUIRE(mpe[c].ok());
            CHECK(mar[c]->approximate->converged);
            const double pe = eliminationValue(net, evidence[c], Eliminate::Sum);
            CHECK(std::abs(pr[c]->log10 - std::log10(pe)) < 1e-9);
            for (uint32_t v = 0; v < net.variables.size(); ++v)
                for (uint32_t x = 0; x < net.variables[v].states.size(); ++x) {
                    std::vector<int> ex = evidence[c];
                    if (ex[v] >= 0 && ex[v] != int(x))
                        continue;
                    ex[v] = int(x);
                    const double exact = eliminationValue(net, ex, Eliminate::Sum) / pe;
                    CHECK(std::abs(mar[c]->marginals[v][x] - exact) < 1e-9);
                }
            const double best = eliminationValue(net, evidence[c], Eliminate::Max);
            CHECK(std::abs(mpe[c]->value - best) <= 1e-9 * best);
            CHECK(std::abs(mpe[c]->value - jointProbability(net, mpe[c]->assignment)) <=
                  1e-12 * best);
            for (size_t v = 0; v < evidence[c].size(); ++v)
                if (evidence[c][v] >= 0)
                    CHECK(mpe[c]->assignment[v] == uint32_t(evidence[c][v]));
        }
    }
}

TEST_CASE("On loopy grids converged messages satisfy the fixed-point equations", "[loopy]") {
    std::mt19937 rng(4);
    for (uint32_t labels : {2u, 3u, 5u}) {
        const FactorGraph g = grid(rng, 5, labels, 0.2);
        std::vector<Evidence> cases(3,
                                    Evidence{std::vector<uint32_t>(g.numVariables(), kNone), {}});
        cases[1].states[7] = 1;
        cases[2].states[0] = 0, cases[2].states[24] = labels - 1;
        for (LoopyUpdateOrder order : {LoopyUpdateOrder::Flooding, LoopyUpdateOrder::Residual})
            for (double damping : {0.0, 0.5})
                for (LoopySemiring semiring :
                     {LoopySemiring::SumProduct, LoopySemiring::MaxProduct}) {
                    if (semiring == LoopySemiring::MaxProduct && damping == 0)
                        continue; // undamped max-product may cycle on loops (Weiss and Freeman
                                  // 2001)
                    LoopyOptions o;
                    o.updateOrder = order;
                    o.damping = damping;
                    o.semiring = semiring;
                    o.tolerance = 1e-8;
                    o.threads = 2;
                    const auto runs = runLoopyBp(g, cases, o);
                    for (size_t c = 0; c < cases.size(); ++c) {
                        INFO("labels " << labels << " order " << loopyUpdateOrderName(order)
                                       << " damping " << damping << " case " << c << " max-product "
                                       << (semiring == LoopySemiring::MaxProduct));
                        INFO("iterations " << runs[c].iterations << " residual "
                                           << runs[c].maxResidual << " vanished "
                                           << runs[c].vanished);
                        REQUIRE(runs[c].converged);
                        CHECK(runs[c].maxResidual < o.tolerance);
                        CHECK(fixedPointGap(g, runs[c], cases[c], semiring) < o.tolerance);
                        if (c == 1 && semiring == LoopySemiring::SumProduct) // evidence clamped
                            CHECK(runs[c].beliefs[g.stateOffset[7] + 1] == 1.0);
                    }
                }
    }
}

TEST_CASE("A batch split over threads answers each case as it does alone", "[loopy]") {
    std::mt19937 rng(8);
    const FactorGraph g = grid(rng, 4, 3, 0.3);
    std::vector<Evidence> cases;
    for (int c = 0; c < 7; ++c) {
        Evidence e{std::vector<uint32_t>(g.numVariables(), kNone), {}};
        e.states[rng() % g.numVariables()] = rng() % 3;
        cases.push_back(e);
    }
    LoopyOptions o;
    o.threads = 3;
    const auto batch = runLoopyTasks(g, Task::Mar, cases, o);
    o.threads = 1;
    for (size_t c = 0; c < cases.size(); ++c) {
        const auto alone = runLoopyTasks(g, Task::Mar, std::span(&cases[c], 1), o);
        REQUIRE(batch[c].ok());
        CHECK(batch[c]->marginals == alone[0]->marginals);
        CHECK(batch[c]->approximate->iterations == alone[0]->approximate->iterations);
    }
}

TEST_CASE("Max-product on tree cost networks finds the optimum; its cost is recomputed",
          "[loopy]") {
    std::mt19937 rng(21);
    for (int trial = 0; trial < 20; ++trial) {
        // A chain of binary and unary cost functions: a tree, so max-product is exact.
        CostNetwork net;
        const uint32_t n = 3 + rng() % 6;
        for (uint32_t v = 0; v < n; ++v)
            net.domainSizes.push_back(2 + rng() % 3);
        for (uint32_t v = 0; v + 1 < n; ++v) {
            CostFunction f;
            f.scope = {v, v + 1};
            for (uint32_t i = 0; i < net.domainSizes[v] * net.domainSizes[v + 1]; ++i)
                f.costs.push_back(double(rng() % 1000) + (rng() % 7 == 0 ? 1e5 : 0));
            net.functions.push_back(f);
        }
        auto g = factorGraphOfCostNetwork(net, "chain.wcsp");
        REQUIRE(g.ok());
        const Evidence none{std::vector<uint32_t>(n, kNone), {}};
        const auto r = runLoopyTasks(*g, Task::Mpe, std::span(&none, 1), {});
        REQUIRE(r[0].ok());
        CHECK(-assignmentLogScore(*g, r[0]->assignment) == assignmentCost(net, r[0]->assignment));
        CHECK(assignmentCost(net, r[0]->assignment) == bruteForceOptimum(net));
    }
}

TEST_CASE("Evidence without support fails its own case only", "[loopy]") {
    BayesNet net;
    net.file = "det";
    net.variables.push_back({"A", {"a0", "a1"}, {}, {1.0, 0.0}});
    net.variables.push_back({"B", {"b0", "b1"}, {0}, {1.0, 0.0, 0.0, 1.0}});
    auto g = factorGraphOfNetwork(net);
    REQUIRE(g.ok());
    std::vector<Evidence> cases{Evidence{{kNone, 1}, {}}, Evidence{{kNone, 0}, {}}};
    const auto r = runLoopyTasks(*g, Task::Mar, cases, {});
    CHECK_FALSE(r[0].ok());
    REQUIRE(r[1].ok());
    CHECK(r[1]->marginals[0][0] == 1.0);
}

TEST_CASE("Linear-domain sum-product messages equal the log-space ones, underflow included",
          "[loopy]") {
    // A loopy grid whose pair tables span 0 .. -900 nats: products underflow the linear domain,
    // so those factors must fall back to log space and still agree.
    std::mt19937 rng(12);
    for (double span : {1.0, 900.0}) {
        FactorGraph g = grid(rng, 4, 4, 0.3);
        std::uniform_real_distribution<double> u(-span, 0.0);
        for (LoopyFactor &f : g.factors)
            if (f.scope.size() == 2)
                for (double &x : f.logValues)
                    x = u(rng);
        const LinearTables linear = linearTables(g);
        VariableSums sums{std::vector<double>(g.stateOffset.back()),
                          std::vector<uint32_t>(g.stateOffset.back())};
        std::vector<double> messages(g.messageEntries());
        for (double &m : messages)
            m = u(rng) / 10;
        const Evidence e{std::vector<uint32_t>(g.numVariables(), kNone), {}};
        sumIntoVariables(g, e, messages, 0, uint32_t(g.numVariables()), sums);
        std::vector<double> viaLog, viaLinear;
        for (uint32_t f = 0; f < g.factors.size(); ++f) {
            const uint64_t size =
                g.messageOffset[g.factorEdgeStart[f + 1]] - g.messageOffset[g.factorEdgeStart[f]];
            viaLog.assign(size, 0);
            viaLinear.assign(size, 0);
            REQUIRE(updateFactorMessages(g, f, sums, messages, LoopySemiring::SumProduct, viaLog));
            REQUIRE(updateFactorMessages(g, f, sums, messages, LoopySemiring::SumProduct, viaLinear,
                                         &linear));
            for (size_t i = 0; i < size; ++i)
                CHECK(viaLinear[i] == Approx(viaLog[i]).margin(1e-12));
        }
    }
}
