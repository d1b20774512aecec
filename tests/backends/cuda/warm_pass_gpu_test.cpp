// A circuit's warm passes over a batch of literal weights on the GPU (part of test_cuda_gpu, which
// exits 77 where no GPU is present), counted on the host by the Device: a warm evaluate or
// forward+backward allocates nothing, uploads its varying inputs' rows once and nothing else (no
// constants, no shared inputs) and waits once. Consecutive varying inputs (literal weights) go
// straight into their rows; the same vectors with one more, apart from them, go through the
// scatter and gather kernels; both give the same bits.
#include "backends/cuda/driver.h"
#include "compiler/frontends/circuits/circuit_load.h"
#include "compiler/frontends/circuits/literal_weights.h"
#include "runtime/engine.h"
#include "runtime/model.h"

#include "tests/catch.hpp"
#include "tests/support/logic_circuit_oracles.h"

#include <random>

using namespace zbddc;

namespace {

std::vector<LiteralWeights> randomWeightings(const LiteralWeights &base, size_t count) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> u(0.05, 1.0);
    std::vector<LiteralWeights> cases(count, base);
    for (LiteralWeights &w : cases) {
        for (double &v : w.positive)
            v = u(rng);
        for (double &v : w.negative)
            v = u(rng);
    }
    return cases;
}

// `batch` with input 0 (an indicator, 1 in every vector) made varying too: the same vectors, whose
// varying inputs are no longer consecutive.
InputBatch withIndicatorVarying(const InputBatch &batch) {
    InputBatch b;
    b.shared = batch.shared;
    b.varying.push_back(0);
    b.varying.insert(b.varying.end(), batch.varying.begin(), batch.varying.end());
    const size_t m = batch.varying.size();
    for (size_t k = 0; k < batch.count; ++k) {
        std::vector<double> row{batch.shared[0]};
        row.insert(row.end(), batch.values.begin() + k * m, batch.values.begin() + (k + 1) * m);
        b.add(row);
    }
    return b;
}

struct Delta {
    uint64_t allocations, uploads, uploadedBytes, waits;
};

template <class F> Delta countsOf(cuda::Device &d, F &&pass) {
    const cuda::DeviceCounts before = d.counts();
    pass();
    const cuda::DeviceCounts after = d.counts();
    return {after.allocations - before.allocations, after.uploads - before.uploads,
            after.uploadedBytes - before.uploadedBytes, after.waits - before.waits};
}

} // namespace

TEST_CASE("a warm pass over literal weights allocates nothing, uploads its rows once and waits "
          "once",
          "[gpu][circuits]") {
    const std::string base = testing::kCircuitFiles + "cnf_f";
    auto c = loadLogicCircuit(base + ".sdd", base + ".weights");
    REQUIRE(c.ok());
    REQUIRE(c->numOutputs() == 1); // one pass gives the values and the adjoints
    auto w = readLiteralWeightsFile(base + ".weights");
    REQUIRE(w.ok());
    auto device = cuda::openDevice(0);
    REQUIRE(device.ok());
    const size_t count = 128;
    const InputBatch inPlace = literalWeightBatch(*c, randomWeightings(*w, count));
    const InputBatch scattered = withIndicatorVarying(inPlace);
    const size_t lanes = cudaLanesFor(*c, count);
    for (Numeric numeric : {Numeric::Float64, Numeric::Log}) {
        INFO(numericName(numeric));
        Model model = Model::fromCircuit(*c, {.device = DeviceKind::Cuda});
        REQUIRE(model.device() == DeviceKind::Cuda);
        const Semiring sp = Semiring::SumProduct;
        std::vector<PassValues> passes;
        for (const InputBatch *batch : {&inPlace, &scattered}) {
            const size_t rowBytes = batch->varying.size() * lanes * sizeof(double);
            // The first calls compile, allocate and put the shared inputs in.
            REQUIRE(model.evaluate(sp, numeric, *batch).ok());
            REQUIRE(model.forwardBackward(sp, numeric, *batch, 0).ok());
            Result<std::vector<double>> values = std::vector<double>{};
            const Delta forward =
                countsOf(**device, [&] { values = model.evaluate(sp, numeric, *batch); });
            REQUIRE(values.ok());
            CHECK(forward.allocations == 0);
            CHECK(forward.uploads == 1);
            CHECK(forward.uploadedBytes == rowBytes);
            CHECK(forward.waits == 1);
            Result<PassValues> pass = PassValues{};
            const Delta both =
                countsOf(**device, [&] { pass = model.forwardBackward(sp, numeric, *batch, 0); });
            REQUIRE(pass.ok());
            CHECK(both.allocations == 0);
            CHECK(both.uploads == 1);
            CHECK(both.uploadedBytes == rowBytes);
            CHECK(both.waits == 1);
            CHECK(pass->outputs == *values);
            passes.push_back(std::move(*pass));
        }
        // The two routes give the same bits: the scattered batch's adjoints past its first column
        // are the in-place batch's.
        const size_t m = inPlace.varying.size();
        CHECK(passes[1].outputs == passes[0].outputs);
        REQUIRE(passes[1].adjoints.size() == count * (m + 1));
        for (size_t k = 0; k < count; ++k)
            for (size_t j = 0; j < m; ++j)
                CHECK(passes[1].adjoints[k * (m + 1) + 1 + j] == passes[0].adjoints[k * m + j]);
    }
}
