// Smoothing and lowering of d-DNNFs and SDDs into the Circuit IR: the reference interpreter's
// weighted model count against enumeration (of the circuit's satisfying assignments, and of the
// CNF a PySDD circuit was compiled from) and against PySDD's own count, within 1e-12 relative;
// the θ adjoints against PySDD's derivatives and enumeration with the literal forced.
#include "compiler/frontends/circuits/circuit_formats.h"
#include "compiler/frontends/circuits/circuit_load.h"
#include "compiler/frontends/circuits/literal_weights.h"
#include "compiler/frontends/circuits/smooth.h"
#include "ir/interpret.h"

#include "tests/catch.hpp"
#include "tests/support/logic_circuit_oracles.h"

#include <random>

using namespace zbddc;
using testing::relativeError;

namespace {

LiteralWeights randomWeights(uint32_t n, std::mt19937 &rng) {
    std::uniform_real_distribution<double> u(0.0, 2.0);
    LiteralWeights w;
    for (uint32_t v = 0; v < n; ++v) {
        w.positive.push_back(u(rng));
        w.negative.push_back(u(rng));
    }
    return w;
}

// The reference interpreter's count of a lowered circuit under `w`.
double circuitWmc(Circuit c, const LiteralWeights &w) {
    REQUIRE(setLiteralWeights(c, w).ok());
    std::vector<double> x(c.numInputs(), 1.0);
    for (size_t i = 0; i < c.numInputs(); ++i)
        if (c.inputs[i].kind == InputKind::Parameter)
            x[i] = c.inputs[i].value;
    auto e = evaluate(c, x, Semiring::SumProduct);
    REQUIRE(e.ok());
    return e->values[c.outputs[0]];
}

Circuit lowered(const LogicCircuit &lc) {
    auto smooth = smoothCircuit(lc);
    REQUIRE(smooth.ok());
    Circuit c = lowerLogicCircuit(*smooth);
    REQUIRE(verify(c).ok());
    return c;
}

} // namespace

TEST_CASE("hand-written d-DNNFs that are not smooth count as enumeration does", "[circuits][wmc]") {
    const char *cases[] = {
        "nnf 5 4 2\nL 1\nL -1\nL 2\nA 2 1 2\nO 1 2 0 3\n",      // x1 OR (NOT x1 AND x2)
        "nnf 1 0 4\nL -3\n",                                    // one literal of four variables
        "nnf 4 3 2\nL 1\nO 0 0\nA 2 0 1\nO 0 1 2\n",            // x1 AND FALSE, folded
        "nnf 1 0 3\nA 0\n",                                     // TRUE over three variables
        "nnf 6 4 3\nL 1\nL -1\nL 3\nA 2 0 2\nO 1 2 3 1\nA 0\n", // the root is the last line, TRUE
        "nnf 6 4 3\nL 1\nL -1\nL 3\nA 2 0 2\nA 0\nO 1 2 3 1\n", // (x1 AND x3) OR NOT x1
    };
    std::mt19937 rng(5);
    for (const char *text : cases) {
        INFO(text);
        auto lc = parseNnf(text, "t.nnf");
        REQUIRE(lc.ok());
        const Circuit c = lowered(*lc);
        for (int trial = 0; trial < 5; ++trial) {
            const LiteralWeights w = randomWeights(lc->numVars, rng);
            const double want = testing::bruteForceLogicWmc(*lc, w);
            CHECK(relativeError(circuitWmc(c, w), want) < 1e-12);
        }
    }
}

TEST_CASE("an AND whose children share a variable is refused with the reason", "[circuits][wmc]") {
    auto lc = parseNnf("nnf 3 2 1\nL 1\nL 1\nA 2 0 1\n", "t.nnf");
    REQUIRE(lc.ok());
    auto s = smoothCircuit(*lc);
    REQUIRE(!s.ok());
    CHECK_THAT(s.error().message, Catch::Matchers::Contains("not decomposable"));
    CHECK(s.error().line == 4); // the AND's line
    // In d4's format the AND is named by its declaration.
    auto d4 = parseNnf("a 1 0\nt 2 0\n1 2 1 0\n1 2 -1 0\n", "t.nnf");
    REQUIRE(d4.ok());
    auto refused = smoothCircuit(*d4);
    REQUIRE(!refused.ok());
    CHECK(refused.error().line == 1);
}

TEST_CASE("PySDD circuits count as the CNF's enumeration and as PySDD, in every spelling",
          "[circuits][wmc]") {
    for (const char *name : {"cnf_a", "cnf_b", "cnf_c", "cnf_d", "cnf_e", "cnf_f"}) {
        INFO(name);
        const std::string base = testing::kCircuitFiles + name;
        const testing::Cnf cnf = testing::readDimacs(base + ".cnf");
        const testing::PysddExpected pysdd = testing::readExpected(base + ".expected");
        auto weights = readLiteralWeightsFile(base + ".weights");
        REQUIRE(weights.ok());
        REQUIRE(weights->numVars() == cnf.numVars);
        const bool enumerable = cnf.numVars <= 16;
        const double enumerated = enumerable ? testing::bruteForceCnfWmc(cnf, *weights) : 0;
        if (enumerable)
            CHECK(relativeError(pysdd.wmc, enumerated) < 1e-12);
        for (const char *spelling : {".sdd", ".nnf", ".d4.nnf"}) {
            if (std::string(name) == "cnf_f" && std::string(spelling) == ".d4.nnf")
                continue; // not committed: its d4 text is large
            INFO(spelling);
            auto c = loadLogicCircuit(base + spelling, base + ".weights");
            REQUIRE(c.ok());
            std::vector<double> x(c->numInputs(), 1.0);
            for (size_t i = 0; i < c->numInputs(); ++i)
                if (c->inputs[i].kind == InputKind::Parameter)
                    x[i] = c->inputs[i].value;
            auto e = evaluate(*c, x, Semiring::SumProduct);
            REQUIRE(e.ok());
            const double wmc = e->values[c->outputs[0]];
            CHECK(relativeError(wmc, pysdd.wmc) < 1e-12);
            if (enumerable)
                CHECK(relativeError(wmc, enumerated) < 1e-12);
            // The θ adjoints are the derivatives of the count by each literal weight.
            const std::vector<double> adj = inputAdjoints(*c, *e, 0);
            for (uint32_t v = 1; v <= cnf.numVars; ++v)
                for (bool positive : {false, true}) {
                    const int32_t lit = positive ? int32_t(v) : -int32_t(v);
                    const double d = adj[weightInput(cnf.numVars, v, positive)];
                    CHECK(relativeError(d, pysdd.derivative.at(lit)) < 1e-12);
                    if (enumerable && v <= 4) { // a few: each is a whole enumeration
                        const double w =
                            positive ? weights->positive[v - 1] : weights->negative[v - 1];
                        CHECK(relativeError(d * w, testing::bruteForceCnfWmc(cnf, *weights, lit)) <
                              1e-12);
                    }
                }
        }
    }
}
