// The oracles of batched MPE on the MLF route, shared by the CPU and GPU tests: a network's CPTs
// beside its compiled MLF circuit, evidence cases (possible and impossible ones), and the check of
// every answer of a batch against brute force (tiny networks) or max-product variable elimination,
// with the assignment's joint probability recomputed from the CPTs; and a network tied on purpose
// whose tie rounds per case are known by construction. None of it shares code with the runtime's
// decoding.
#pragma once

#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/frontends/zdd/zdd_lower.h"
#include "compiler/mlf/mlf_compile.h"
#include "runtime/tasks.h"

#include "tests/catch.hpp"
#include "tests/support/bn_brute_force.h"
#include "tests/support/bn_elimination.h"

#include <cmath>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace zbddc::testing {

// A network and its MLF circuit, variables in the same order (the runtime's evidence indexes both).
struct CompiledNetwork {
    BayesNet net;
    Circuit circuit;
};

inline CompiledNetwork compileNetwork(BayesNet net) {
    auto zdd = compileMlf(net);
    REQUIRE(zdd.ok());
    Circuit c = lowerZdd(*zdd);
    REQUIRE(c.variables.size() == net.variables.size());
    for (size_t v = 0; v < c.variables.size(); ++v)
        REQUIRE(c.variables[v].name == net.variables[v].name);
    return {std::move(net), std::move(c)};
}

// `name`.bif from the bundled benchmark networks (tests/data), beside its MLF circuit.
inline std::optional<CompiledNetwork> benchmarkNetwork(const char *name) {
    const std::string path = std::string(ZBDDC_BENCHMARKS_DIR) + "/bn/" + name + ".bif";
    REQUIRE(std::filesystem::exists(path));
    auto net = readNetworkFile(path);
    REQUIRE(net.ok());
    return compileNetwork(std::move(*net));
}

// `count` cases, about a fifth of the variables observed each: odd cases from an ancestral
// sample (P(e) > 0), even ones at random (often impossible on networks with zeros), and the 6th
// of every 13 contradicted (a variable observed in two states).
inline std::vector<Evidence> mixedCases(const BayesNet &net, size_t count, std::mt19937 &rng) {
    std::vector<Evidence> cases;
    for (size_t i = 0; i < count; ++i) {
        const std::vector<uint32_t> sample = ancestralSample(net, rng);
        Evidence e;
        for (uint32_t v = 0; v < net.variables.size(); ++v) {
            const auto random = static_cast<uint32_t>(rng() % net.variables[v].states.size());
            e.states.push_back(rng() % 5 != 0 ? kNone : i % 2 ? sample[v] : random);
        }
        if (i % 13 == 5) {
            e.states[rng() % e.states.size()] = kContradicted;
            e.contradiction = "observed twice";
        }
        cases.push_back(std::move(e));
    }
    return cases;
}

// max_x P(x, e) by brute force where the joint has at most 2^16 states, else by max-product
// variable elimination; 0 for a contradicted case.
inline double mpeOracle(const BayesNet &net, const Evidence &ev) {
    std::vector<int> e;
    double states = 1;
    for (uint32_t v = 0; v < net.variables.size(); ++v) {
        if (ev.states[v] == kContradicted)
            return 0.0;
        e.push_back(ev.states[v] == kNone ? -1 : static_cast<int>(ev.states[v]));
        states *= static_cast<double>(net.variables[v].states.size());
    }
    return states <= 65536 ? bruteForceQueries(net, e).mpeValue
                           : eliminationValue(net, e, Eliminate::Max);
}

inline std::vector<double> mpeOracles(const BayesNet &net, std::span<const Evidence> cases) {
    std::vector<double> want;
    for (const Evidence &e : cases)
        want.push_back(mpeOracle(net, e));
    return want;
}

// One answer against its oracle value `want`: impossible evidence reported as such; else the
// value within 1e-9 relative, and a complete assignment that keeps the evidence and whose joint
// probability by the CPTs is that value.
inline void checkMpeAnswer(const BayesNet &net, const Evidence &ev, double want,
                           const Result<TaskResult> &got) {
    if (want == 0.0) {
        REQUIRE_FALSE(got.ok());
        CHECK(got.error().message == "MPE is undefined: the evidence has probability 0");
        return;
    }
    if (!got)
        FAIL(got.error().str());
    INFO("MPE value: expected " << want << ", got " << got->value);
    CHECK(std::abs(got->value - want) <= 1e-9 * want);
    REQUIRE(got->assignment.size() == net.variables.size());
    for (uint32_t v = 0; v < net.variables.size(); ++v) {
        REQUIRE(got->assignment[v] < net.variables[v].states.size());
        if (ev.states[v] != kNone)
            CHECK(got->assignment[v] == ev.states[v]);
    }
    const double joint = jointProbability(net, got->assignment);
    INFO("the assignment's probability by the CPTs: " << joint);
    CHECK(std::abs(joint - want) <= 1e-9 * want);
}

// Every answer of a batch; `want` from mpeOracles (computed once for several backends).
inline void checkMpeAnswers(const BayesNet &net, std::span<const Evidence> cases,
                            const std::vector<double> &want,
                            const std::vector<Result<TaskResult>> &batch) {
    REQUIRE(batch.size() == cases.size());
    for (size_t i = 0; i < cases.size(); ++i) {
        INFO("case " << i);
        checkMpeAnswer(net, cases[i], want[i], batch[i]);
    }
}

// X, a copy of coin C0 (a deterministic CPT), then four fair coins C0..C3: every MPE ties on each
// unobserved coin, and X on C0. A round fixes one tied variable per case; X and C0 settle
// together, the other coins do not, so a case takes one round per unobserved coin, C0 counted
// only where X is unobserved too.
inline BayesNet tiedCoins() {
    BayesNet net;
    net.file = "coins";
    net.variables.push_back({"X", {"h", "t"}, {1}, {1, 0, 0, 1}});
    for (int c = 0; c < 4; ++c)
        net.variables.push_back({"C" + std::to_string(c), {"h", "t"}, {}, {0.5, 0.5}});
    return net;
}

inline uint32_t tieRounds(const Evidence &e) {
    uint32_t rounds = 0;
    for (uint32_t v = 1; v <= 4; ++v)
        rounds += e.states[v] == kNone && (v != 1 || e.states[0] == kNone);
    return rounds;
}

inline bool possibleCoins(const Evidence &e) {
    return e.states[0] == kNone || e.states[1] == kNone || e.states[0] == e.states[1];
}

// Every variable of tiedCoins() unobserved, heads or tails: 3^5 cases, those observing X against
// C0 impossible.
inline std::vector<Evidence> everyCoinCase() {
    std::vector<Evidence> cases;
    for (uint32_t code = 0; code < 243; ++code) {
        Evidence e;
        for (uint32_t v = 0, c = code; v < 5; ++v, c /= 3)
            e.states.push_back(c % 3 == 2 ? kNone : c % 3);
        cases.push_back(std::move(e));
    }
    return cases;
}

} // namespace zbddc::testing
