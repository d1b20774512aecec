// The Gibbs sampler of Markov networks' evidence (runtime/gibbs_evidence.h) against brute force:
// on a tiny network with zero entries, its states never leave positive weight and their
// frequencies approach the exact joint distribution; the same seed gives the same cases.
#include "runtime/gibbs_evidence.h"

#include "tests/catch.hpp"

#include <cmath>
#include <map>

using namespace zbddc;

namespace {

// Three variables of 2, 3 and 2 states; two of the joint's twelve states have weight 0.
const char *kTiny = "MARKOV\n3\n2 3 2\n3\n2 0 1\n2 1 2\n1 2\n"
                    "6\n0.5 0 1 2 1 0.25\n"
                    "6\n1 3 2 0.5 0 1\n"
                    "2\n0.4 0.6\n";

uint32_t code(const std::vector<uint32_t> &x) {
    return (x[0] * 3 + x[1]) * 2 + x[2];
}

} // namespace

TEST_CASE("Gibbs-sampled states follow the joint distribution and keep positive weight",
          "[gibbs]") {
    auto model = parseUaiFactorModel(kTiny, "tiny.uai");
    REQUIRE(model);
    std::map<uint32_t, double> exact; // brute force: every state's weight, normalised
    double z = 0;
    for (uint32_t a = 0; a < 2; ++a)
        for (uint32_t b = 0; b < 3; ++b)
            for (uint32_t c = 0; c < 2; ++c) {
                const std::vector<uint32_t> x{a, b, c};
                const double w = std::exp(logWeight(*model, x));
                exact[code(x)] = w;
                z += w;
            }
    for (auto &[state, p] : exact)
        p /= z;
    const std::vector<uint32_t> start{0, 0, 0}; // weight 0.5 · 1 · 0.4 > 0
    GibbsEvidenceSampler sampler(*model, start, 1.0, 7);
    const int n = 40000;
    std::map<uint32_t, double> seen;
    for (int i = 0; i < n; ++i) {
        const Evidence e = sampler.next();
        REQUIRE(e.states == sampler.state()); // every variable observed at fraction 1
        REQUIRE(std::isfinite(logWeight(*model, e.states)));
        seen[code(e.states)] += 1.0 / n;
    }
    for (const auto &[state, p] : exact) {
        INFO("state " << state);
        CHECK(std::fabs(seen[state] - p) < 0.01);
        if (p == 0)
            CHECK(seen[state] == 0);
    }
}

TEST_CASE("Gibbs evidence: the same seed, the same cases; a share of variables observed",
          "[gibbs]") {
    auto model = parseUaiFactorModel(kTiny, "tiny.uai");
    REQUIRE(model);
    GibbsEvidenceSampler a(*model, {1, 2, 1}, 0.5, 3), b(*model, {1, 2, 1}, 0.5, 3),
        c(*model, {1, 2, 1}, 0.5, 4);
    bool differs = false;
    size_t observed = 0;
    for (int i = 0; i < 2000; ++i) {
        const Evidence ea = a.next(), eb = b.next(), ec = c.next();
        CHECK(ea.states == eb.states);
        differs |= ea.states != ec.states;
        for (size_t v = 0; v < 3; ++v)
            if (ea.states[v] != kNone) {
                ++observed;
                CHECK(ea.states[v] == a.state()[v]);
            }
    }
    CHECK(differs);
    CHECK(std::fabs(observed / 6000.0 - 0.5) < 0.03);
}
