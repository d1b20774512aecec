// The MLF compiled into a ZBDD, lowered to a circuit and run on the reference evaluator, against
// brute-force enumeration of the joint distribution computed here from the CPTs alone.
#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/frontends/zdd/zdd_lower.h"
#include "compiler/mlf/mlf_compile.h"
#include "ir/interpret.h"

#include "tests/catch.hpp"
#include "tests/support/circuit_probability.h"

#include <cmath>
#include <filesystem>
#include <random>

using namespace zbddc;
using zbddc::testing::circuitProbability;

namespace {
// Evidence: state index per variable, or -1 for unobserved.
using Evidence = std::vector<int>;

// P(e) by summing the product of CPT entries over every joint assignment consistent with e.
double bruteForceProbability(const BayesNet &net, const Evidence &e) {
    const size_t n = net.variables.size();
    std::vector<size_t> x(n, 0);
    double total = 0;
    for (;;) {
        bool consistent = true;
        for (size_t v = 0; v < n && consistent; ++v)
            consistent = e[v] < 0 || static_cast<size_t>(e[v]) == x[v];
        if (consistent) {
            double p = 1;
            for (size_t v = 0; v < n; ++v) {
                const BnVariable &var = net.variables[v];
                size_t row = 0;
                for (uint32_t u : var.parents)
                    row = row * net.variables[u].states.size() + x[u];
                p *= var.cpt[row * var.states.size() + x[v]];
            }
            total += p;
        }
        size_t v = 0;
        while (v < n && ++x[v] == net.variables[v].states.size())
            x[v++] = 0;
        if (v == n)
            return total;
    }
}

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
            const double expected = bruteForceProbability(net, e);
            const double got = circuitProbability(c, *model, e);
            CHECK(got == Approx(expected).epsilon(1e-12).margin(1e-300));
        }
    }
}

BayesNet randomNetwork(std::mt19937 &rng, size_t n) {
    BayesNet net;
    net.file = "random";
    for (size_t v = 0; v < n; ++v) {
        BnVariable var;
        var.name = "V" + std::to_string(v);
        const size_t k = 2 + rng() % 3;
        for (size_t s = 0; s < k; ++s)
            var.states.push_back("s" + std::to_string(s));
        // Parents among earlier variables, up to 3, in a shuffled CPT order.
        for (uint32_t u = 0; u < v; ++u)
            if (var.parents.size() < 3 && rng() % 3 == 0)
                var.parents.push_back(u);
        std::shuffle(var.parents.begin(), var.parents.end(), rng);
        net.variables.push_back(std::move(var));
    }
    // Shuffle the file order so that parents may come after their children in the file.
    std::vector<uint32_t> perm(n);
    for (uint32_t v = 0; v < n; ++v)
        perm[v] = v;
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<BnVariable> shuffled(n);
    for (uint32_t v = 0; v < n; ++v) {
        for (uint32_t &u : net.variables[v].parents)
            u = perm[u];
        shuffled[perm[v]] = std::move(net.variables[v]);
    }
    net.variables = std::move(shuffled);
    for (uint32_t v = 0; v < n; ++v) {
        BnVariable &var = net.variables[v];
        const size_t rows = net.rowCount(v), k = var.states.size();
        const double shared[] = {0.25, 0.5}; // repeated parameters, also across rows
        for (size_t r = 0; r < rows; ++r) {
            const int kind = static_cast<int>(rng() % 4);
            for (size_t x = 0; x < k; ++x) {
                double p;
                if (kind == 0) // deterministic row: one 1, the rest 0
                    p = x == r % k ? 1.0 : 0.0;
                else if (kind == 1 && k == 2)
                    p = shared[0] * (x == 0 ? 1 : 3);
                else if (kind == 2 && k == 2)
                    p = shared[1];
                else
                    p = 0.05 + std::uniform_real_distribution<double>(0, 1)(rng);
                var.cpt.push_back(p);
            }
            if (kind == 3) {
                double sum = 0;
                for (size_t x = 0; x < k; ++x)
                    sum += var.cpt[r * k + x];
                for (size_t x = 0; x < k; ++x)
                    var.cpt[r * k + x] /= sum;
                if (rng() % 2)
                    var.cpt[r * k + rng() % k] = 0.0; // a zero removes terms
            }
        }
    }
    return net;
}
} // namespace

TEST_CASE("P(e) of the compiled MLF equals brute force on the small benchmark networks", "[mlf]") {
    const std::filesystem::path dir = std::filesystem::path(ZBDDC_BENCHMARKS_DIR) / "bn";
    if (!std::filesystem::exists(dir)) {
        WARN("skipped: " << dir << " is absent");
        return;
    }
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
        const BayesNet net = randomNetwork(rng, 1 + rng() % 8);
        checkNetworkAgainstBruteForce(net, rng, 6);
    }
}

TEST_CASE("a node limit too small for the network ends in an error naming the CPT", "[mlf]") {
    std::mt19937 rng(5);
    const BayesNet net = randomNetwork(rng, 8);
    MlfOptions tiny;
    tiny.ordering = MlfOrdering::MinFill;
    tiny.nodeLimit = 16;
    auto model = compileMlf(net, tiny);
    REQUIRE_FALSE(model.ok());
    CHECK(model.error().message.find("node limit of 16") != std::string::npos);
    CHECK(model.error().message.find("while multiplying the CPT of") != std::string::npos);
}
