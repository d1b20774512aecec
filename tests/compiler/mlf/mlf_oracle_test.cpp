// The MLF compiled into a ZBDD, lowered to a circuit and run on the reference evaluator, against
// brute-force enumeration of the joint distribution computed here from the CPTs alone.
#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/frontends/zdd/zdd_lower.h"
#include "compiler/mlf/mlf_compile.h"
#include "ir/interpret.h"

#include "tests/catch.hpp"
#include "tests/support/bn_brute_force.h"
#include "tests/support/circuit_probability.h"

#include <cmath>
#include <filesystem>
#include <random>

using namespace zbddc;
using zbddc::testing::circuitProbability;
using zbddc::testing::bruteForceQueries;
using zbddc::testing::randomBayesNet;

namespace {
// Evidence: state index per variable, or -1 for unobserved.
using Evidence = std::vector<int>;


// Joint assignments whose CPT entries are all nonzero: each is one term of the MLF.
double nonzeroTerms(const BayesNet &net) {
    const size_t n = net.variables.size();
    std::vector<size_t> x(n, 0);
    double count = 0;
    for (;;) {
        bool nonzero = true;
        for (size_t v = 0; v < n && nonzero; ++v) {
            const BnVariable &var = net.variables[v];
            size_t row = 0;
            for (uint32_t u : var.parents)
                row = row * net.variables[u].states.size() + x[u];
            nonzero = var.cpt[row * var.states.size() + x[v]] != 0.0;
        }
        count += nonzero;
        size_t v = 0;
        while (v < n && ++x[v] == net.variables[v].states.size())
            x[v++] = 0;
        if (v == n)
            return count;
    }
}


void checkStructure(const ZddModel &m) {
    for (size_t i = 0; i < m.nodes.size(); ++i) {
        const ZddNode &nd = m.nodes[i];
        const uint32_t id = ZddModel::idOf(i);
        REQUIRE(nd.hi != kZddEmpty);
        REQUIRE(nd.var < m.vars.size());
        for (uint32_t child : {nd.lo, nd.hi})
            if (child >= 2) {
                REQUIRE(child < id);                    // children first
                REQUIRE(m.node(child).var > nd.var);     // top variable smallest
            }
    }
    REQUIRE(m.roots.size() == 1);
    REQUIRE(m.rootNames[0] == "pr");
}

void checkNetworkAgainstBruteForce(const BayesNet &net, std::mt19937 &rng, int evidenceCases) {
    for (int variant = 0; variant < 4; ++variant) {
        const auto ordering = static_cast<MlfOrdering>(variant % 3);
        const bool thetaAtBottom = variant == 3;
        INFO("ordering " << mlfOrderingName(ordering) << (thetaAtBottom ? ", θ at the bottom" : ""));
        MlfStats stats;
        MlfOptions options;
        options.ordering = ordering;
        options.nodeLimit = size_t{1} << 22;
        options.thetaAtBottom = thetaAtBottom;
        auto model = compileMlf(net, options, &stats);
        REQUIRE(model.ok());
        checkStructure(*model);
        REQUIRE(model->variables.size() == net.variables.size());
        for (size_t v = 0; v < net.variables.size(); ++v) {
            REQUIRE(model->variables[v].name == net.variables[v].name); // file order kept
            REQUIRE(model->variables[v].states == net.variables[v].states);
        }
        CHECK(stats.terms == nonzeroTerms(net));
        const Circuit c = lowerZdd(*model);
        REQUIRE(verify(c).ok());
        for (int k = 0; k < evidenceCases; ++k) {
            Evidence e(net.variables.size(), -1);
            for (size_t v = 0; v < e.size(); ++v)
                if (k > 0 && rng() % 3 == 0)
                    e[v] = static_cast<int>(rng() % net.variables[v].states.size());
            const double expected = bruteForceQueries(net, e).probability;
            const double got = circuitProbability(c, *model, e);
            CHECK(got == Approx(expected).epsilon(1e-12).margin(1e-300));
        }
    }
}

} // namespace

TEST_CASE("P(e) of the compiled MLF equals brute force on the small benchmark networks", "[mlf]") {
    const std::filesystem::path dir = std::filesystem::path(ZBDDC_BENCHMARKS_DIR) / "bn";
    REQUIRE(std::filesystem::exists(dir));
    std::mt19937 rng(3);
    for (const char *name : {"asia", "cancer", "earthquake", "sachs", "survey"}) {
        INFO("network " << name);
        auto net = readNetworkFile((dir / (std::string(name) + ".bif")).string());
        REQUIRE(net.ok());
        checkNetworkAgainstBruteForce(*net, rng, 12);
    }
}

TEST_CASE("P(e) of the compiled MLF equals brute force on random tiny networks", "[mlf]") {
    std::mt19937 rng(17);
    for (int trial = 0; trial < 40; ++trial) {
        INFO("trial " << trial);
        const BayesNet net = randomBayesNet(rng, 1 + rng() % 8);
        checkNetworkAgainstBruteForce(net, rng, 6);
    }
}

TEST_CASE("a node limit too small for the network ends in an error naming the CPT", "[mlf]") {
    std::mt19937 rng(5);
    const BayesNet net = randomBayesNet(rng, 8);
    MlfOptions tiny;
    tiny.ordering = MlfOrdering::MinFill;
    tiny.nodeLimit = 16;
    auto model = compileMlf(net, tiny);
    REQUIRE_FALSE(model.ok());
    CHECK(model.error().message.find("node limit of 16") != std::string::npos);
    CHECK(model.error().message.find("while multiplying the CPT of") != std::string::npos);
}
