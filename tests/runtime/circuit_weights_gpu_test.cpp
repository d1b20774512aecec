// A PySDD circuit's batches of literal weights on the GPU (part of test_runtime_gpu, which exits
// 77 where no GPU is usable): counts and gradients against the reference evaluator, batch by
// batch, float64 and log space, and the file weights' count against PySDD's.
#include "compiler/frontends/circuits/circuit_load.h"
#include "compiler/frontends/circuits/literal_weights.h"
#include "runtime/model.h"
#include "runtime/tasks.h"

#include "tests/catch.hpp"
#include "tests/support/logic_circuit_oracles.h"

#include <cmath>
#include <random>

using namespace zbddc;
using testing::relativeError;

TEST_CASE("weight batches of a PySDD circuit on the GPU equal the reference", "[gpu][circuits]") {
    const std::string base = testing::kCircuitFiles + "cnf_f";
    auto c = loadLogicCircuit(base + ".sdd", base + ".weights");
    REQUIRE(c.ok());
    auto w = readLiteralWeightsFile(base + ".weights");
    REQUIRE(w.ok());
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(0.05, 1.0);
    DeviceOptions gpu;
    gpu.device = DeviceKind::Cuda;
    Model device = Model::fromCircuit(*c, gpu);
    REQUIRE(device.device() == DeviceKind::Cuda);
    Model reference = Model::fromCircuit(*c, {.device = DeviceKind::Reference});
    for (size_t count : {1u, 128u, 1500u}) {
        INFO(count << " weight vectors");
        std::vector<LiteralWeights> cases{*w};
        while (cases.size() < count) {
            LiteralWeights x = *w;
            for (double &v : x.positive)
                v = u(rng);
            for (double &v : x.negative)
                v = u(rng);
            cases.push_back(x);
        }
        const InputBatch batch = literalWeightBatch(*c, cases);
        for (Numeric numeric : {Numeric::Float64, Numeric::Log}) {
            auto got = device.forwardBackward(Semiring::SumProduct, numeric, batch, 0);
            auto want = reference.forwardBackward(Semiring::SumProduct, numeric, batch, 0);
            REQUIRE(got.ok());
            REQUIRE(want.ok());
            REQUIRE(got->outputs.size() == want->outputs.size());
            REQUIRE(got->adjoints.size() == want->adjoints.size());
            // Log space compared as the linear values it stands for.
            auto linear = [&](double v) { return numeric == Numeric::Log ? std::exp(v) : v; };
            for (size_t k = 0; k < want->outputs.size(); ++k)
                CHECK(relativeError(linear(got->outputs[k]), linear(want->outputs[k])) < 1e-12);
            for (size_t k = 0; k < want->adjoints.size(); ++k)
                CHECK(relativeError(linear(got->adjoints[k]), linear(want->adjoints[k])) < 1e-10);
            if (numeric == Numeric::Float64)
                CHECK(relativeError(got->outputs[0],
                                    testing::readExpected(base + ".expected").wmc) < 1e-12);
        }
    }
}

TEST_CASE("weightings as per-case free inputs: one GPU batch answers as the reference case by "
          "case",
          "[gpu][circuits]") {
    const std::string base = testing::kCircuitFiles + "cnf_f";
    auto c = loadLogicCircuit(base + ".sdd", base + ".weights");
    REQUIRE(c.ok());
    std::vector<double> params; // the weights made free, as `--weight-cases` reads a circuit
    for (InputInfo &in : c->inputs)
        if (in.kind == InputKind::Parameter) {
            params.push_back(in.value);
            in = {InputKind::Free, kNone, kNone, 0.0, ""};
        }
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> u(0.05, 1.0);
    const size_t count = 300;
    std::vector<std::vector<double>> own(count, params);
    for (auto &row : own)
        for (double &v : row)
            v = u(rng);
    const std::vector<Evidence> cases(count, noEvidence(c->variables));
    DeviceOptions gpu;
    gpu.device = DeviceKind::Cuda;
    Model device = Model::fromCircuit(*c, gpu);
    REQUIRE(device.device() == DeviceKind::Cuda);
    for (const Task task : {Task::Pr, Task::Mar}) {
        TaskOptions batch;
        batch.caseFreeInputs = own;
        const auto got = runTasks(device, task, cases, batch);
        REQUIRE(got.size() == count);
        for (size_t k = 0; k < count; k += 37) {
            TaskOptions alone;
            alone.freeInputs = own[k];
            const auto want = runTask(*c, task, cases[k], alone);
            REQUIRE(want.ok());
            REQUIRE(got[k].ok());
            CHECK(relativeError(got[k]->value, want->value) < 1e-12);
            for (size_t v = 0; v < want->marginals.size(); ++v)
                for (size_t s = 0; s < want->marginals[v].size(); ++s)
                    CHECK(std::abs(got[k]->marginals[v][s] - want->marginals[v][s]) < 1e-12);
        }
    }
}
