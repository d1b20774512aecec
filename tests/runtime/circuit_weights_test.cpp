// A knowledge compiler's circuit with a batch of literal-weight vectors (the neurosymbolic case:
// one circuit, B weightings) on every CPU backend: counts against enumeration of the CNF and
// PySDD's count, gradients (the θ adjoints of one backward pass) against central differences of
// the enumerated count, log space against float64; and PR, MAR and MPE through the tasks.
#include "compiler/frontends/circuits/circuit_load.h"
#include "compiler/frontends/circuits/literal_weights.h"
#include "runtime/tasks.h"

#include "tests/catch.hpp"
#include "tests/support/cpu_backends.h"
#include "tests/support/logic_circuit_oracles.h"

#include <cmath>
#include <random>

using namespace zbddc;
using testing::relativeError;

namespace {

std::vector<LiteralWeights> weightBatch(const LiteralWeights &first, size_t count,
                                        std::mt19937 &rng) {
    std::uniform_real_distribution<double> u(0.05, 2.0);
    std::vector<LiteralWeights> cases{first};
    while (cases.size() < count) {
        LiteralWeights w = first;
        for (double &x : w.positive)
            x = u(rng);
        for (double &x : w.negative)
            x = u(rng);
        cases.push_back(w);
    }
    return cases;
}

struct Loaded {
    Circuit circuit;
    LiteralWeights weights;
    testing::Cnf cnf;
    testing::PysddExpected pysdd;
};

Loaded load(const std::string &name, const char *spelling) {
    const std::string base = testing::kCircuitFiles + name;
    auto c = loadLogicCircuit(base + spelling, base + ".weights");
    REQUIRE(c.ok());
    auto w = readLiteralWeightsFile(base + ".weights");
    REQUIRE(w.ok());
    return {std::move(*c), std::move(*w), testing::readDimacs(base + ".cnf"),
            testing::readExpected(base + ".expected")};
}

} // namespace

TEST_CASE("a batch of weight vectors: counts and gradients on every CPU backend",
          "[circuits][weights]") {
    std::mt19937 rng(11);
    const Loaded m = load("cnf_c", ".sdd");
    const uint32_t n = m.cnf.numVars;
    const std::vector<LiteralWeights> cases = weightBatch(m.weights, 6, rng);
    const InputBatch batch = literalWeightBatch(m.circuit, cases);
    for (const testing::CpuBackend &backend : testing::kCpuBackends) {
        INFO(backend.name);
        Model model = Model::fromCircuit(m.circuit, backend.options);
        auto pass = model.forwardBackward(Semiring::SumProduct, Numeric::Float64, batch, 0);
        REQUIRE(pass.ok());
        REQUIRE(pass->outputs.size() == cases.size());
        REQUIRE(pass->adjoints.size() == cases.size() * 2 * n);
        CHECK(relativeError(pass->outputs[0], m.pysdd.wmc) < 1e-12);
        for (size_t k = 0; k < cases.size(); ++k) {
            INFO("case " << k);
            CHECK(relativeError(pass->outputs[k], testing::bruteForceCnfWmc(m.cnf, cases[k])) <
                  1e-12);
            for (uint32_t v = 1; v <= n; v += 3)
                for (bool positive : {false, true}) {
                    // The count is linear in each weight: a central difference is exact but for
                    // rounding.
                    const double h = 1e-3;
                    LiteralWeights up = cases[k], down = cases[k];
                    (positive ? up.positive : up.negative)[v - 1] += h;
                    (positive ? down.positive : down.negative)[v - 1] -= h;
                    const double fd = (testing::bruteForceCnfWmc(m.cnf, up) -
                                       testing::bruteForceCnfWmc(m.cnf, down)) /
                                      (2 * h);
                    const double got = pass->adjoints[k * 2 * n + indicatorInput(v, positive)];
                    CHECK(relativeError(got, fd) < 1e-8);
                }
        }
        // Log space: the same counts as natural logs.
        auto logs = model.evaluate(Semiring::SumProduct, Numeric::Log, batch);
        REQUIRE(logs.ok());
        for (size_t k = 0; k < cases.size(); ++k)
            CHECK(std::abs((*logs)[k] - std::log(pass->outputs[k])) <
                  1e-12 * std::max(1.0, std::abs((*logs)[k])));
    }
}

TEST_CASE("the larger PySDD circuit's gradient is PySDD's derivative on every CPU backend",
          "[circuits][weights]") {
    const Loaded m = load("cnf_f", ".nnf");
    const uint32_t n = m.cnf.numVars;
    const InputBatch batch = literalWeightBatch(m.circuit, std::span(&m.weights, 1));
    for (const testing::CpuBackend &backend : testing::kCpuBackends) {
        INFO(backend.name);
        Model model = Model::fromCircuit(m.circuit, backend.options);
        auto pass = model.forwardBackward(Semiring::SumProduct, Numeric::Float64, batch, 0);
        REQUIRE(pass.ok());
        CHECK(relativeError(pass->outputs[0], m.pysdd.wmc) < 1e-12);
        for (uint32_t v = 1; v <= n; ++v)
            for (bool positive : {false, true})
                CHECK(relativeError(pass->adjoints[indicatorInput(v, positive)],
                                    m.pysdd.derivative.at(positive ? int32_t(v) : -int32_t(v))) <
                      1e-12);
    }
}

TEST_CASE("PR, MAR and MPE of a weighted circuit against enumeration", "[circuits][weights]") {
    const Loaded m = load("cnf_b", ".sdd"); // two variables in no clause
    const uint32_t n = m.cnf.numVars;
    const double total = testing::bruteForceCnfWmc(m.cnf, m.weights);
    // The most probable model by enumeration.
    double best = 0;
    for (uint64_t x = 0; x < (uint64_t{1} << n); ++x) {
        bool sat = true;
        for (const auto &clause : m.cnf.clauses) {
            bool any = false;
            for (int32_t lit : clause)
                any = any || testing::literalTrue(lit, x);
            sat = sat && any;
        }
        if (sat)
            best = std::max(best, testing::assignmentWeight(x, n, m.weights));
    }
    for (const testing::CpuBackend &backend : testing::kCpuBackends) {
        INFO(backend.name);
        Model model = Model::fromCircuit(m.circuit, backend.options);
        const Evidence none = noEvidence(model.interface().variables);
        auto pr = runTask(model, Task::Pr, none);
        REQUIRE(pr.ok());
        CHECK(relativeError(pr->value, total) < 1e-12);
        auto mar = runTask(model, Task::Mar, none);
        REQUIRE(mar.ok());
        for (uint32_t v = 1; v <= n; ++v)
            CHECK(relativeError(mar->marginals[v - 1][1],
                                testing::bruteForceCnfWmc(m.cnf, m.weights, int32_t(v)) / total) <
                  1e-12);
        auto mpe = runTask(model, Task::Mpe, none);
        REQUIRE(mpe.ok());
        CHECK(relativeError(mpe->value, best) < 1e-12);
        uint64_t x = 0;
        for (uint32_t v = 1; v <= n; ++v)
            x |= uint64_t{mpe->assignment[v - 1] == 1} << (v - 1);
        CHECK(relativeError(testing::assignmentWeight(x, n, m.weights), best) < 1e-12);
        // Evidence conditions the count: x1 observed true.
        Evidence e = none;
        e.states[0] = 1;
        auto conditioned = runTask(model, Task::Pr, e);
        REQUIRE(conditioned.ok());
        CHECK(relativeError(conditioned->value, testing::bruteForceCnfWmc(m.cnf, m.weights, 1)) <
              1e-12);
    }
}
