// Model's passes over a batch of shared and varying inputs (ir/input_batch.h) on every CPU backend
// against the same vectors whole on the reference evaluator, and the batches it refuses.
#include "runtime/model.h"

#include "tests/catch.hpp"
#include "tests/support/cpu_backends.h"
#include "tests/support/random_circuits.h"
#include "tests/support/varying_pass_checks.h"

#include <random>

using namespace zbddc;
using namespace zbddc::testing;

TEST_CASE("a batch of shared and varying inputs answers as its vectors whole, on the CPU",
          "[model][varying]") {
    std::mt19937 rng(41);
    for (const CpuBackend &backend : kCpuBackends) {
        INFO(backend.name);
        for (Semiring s : {Semiring::SumProduct, Semiring::MaxProduct}) {
            const Circuit c =
                randomCircuit({.inputs = 12, .ops = 120, .outputs = 2, .semiring = s}, rng);
            Model m = Model::fromCircuit(c, backend.options);
            for (Numeric n : {Numeric::Float64, Numeric::Log})
                for (double share : {0.0, 1.0 / 3, 1.0})
                    for (size_t count : {1, 9}) {
                        INFO(semiringName(s) << (n == Numeric::Log ? " log" : "") << ", share "
                                             << share << ", " << count << " vectors");
                        const InputBatch b = randomVaryingBatch(c.numInputs(), count, rng, share);
                        for (size_t output : {0, 1})
                            checkVaryingPass(m, c, s, n, b, output, 1e-12);
                    }
        }
    }
}

TEST_CASE("a batch of shared and varying inputs that does not fit the model is refused",
          "[model][varying]") {
    std::mt19937 rng(42);
    const Circuit c = randomCircuit({.inputs = 5, .ops = 30, .outputs = 1}, rng);
    DeviceOptions reference;
    reference.device = DeviceKind::Reference;
    Model m = Model::fromCircuit(c, reference);
    const InputBatch good = randomVaryingBatch(c.numInputs(), 3, rng, 0.5);
    auto refused = [&](InputBatch b, size_t output = 0) {
        auto r = m.forwardBackward(Semiring::SumProduct, Numeric::Float64, b, output);
        REQUIRE_FALSE(r.ok());
        return r.error().message;
    };
    CHECK_THAT(refused(good, 1), Catch::Contains("output 1 out of range"));
    InputBatch b = good;
    b.shared.pop_back();
    CHECK_THAT(refused(b), Catch::Contains("expected 5 shared input values, got 4"));
    b = good;
    b.count += 1;
    CHECK_THAT(refused(b), Catch::Contains("varying input values"));
    b = InputBatch{good.shared, {3, 1}, {}, 0};
    CHECK_THAT(refused(b), Catch::Contains("ascending"));
    b = InputBatch{good.shared, {5}, {}, 0};
    CHECK_THAT(refused(b), Catch::Contains("below 5"));
}

TEST_CASE("a batch in device memory runs only on a GPU, and says which address it lacks",
          "[model][varying]") {
    std::mt19937 rng(43);
    const Circuit c = randomCircuit({.inputs = 5, .ops = 30, .outputs = 1}, rng);
    const InputBatch host = randomVaryingBatch(c.numInputs(), 3, rng, 0.5);
    DeviceInputBatch b{host.shared, host.varying, 0, host.count, 0, 0};
    for (const CpuBackend &backend : kCpuBackends) {
        Model m = Model::fromCircuit(c, backend.options);
        CHECK_FALSE(m.passOnDevice(Semiring::SumProduct, Numeric::Float64, b, 0).has_value());
    }
    REQUIRE_FALSE(b.varying.empty());
    CHECK_THAT(b.check(5, false).error().message, Catch::Contains("varying input values"));
    b.values = 8;
    CHECK(b.check(5, false).ok());
    CHECK_THAT(b.check(5, true).error().message, Catch::Contains("adjoints"));
    b.adjoints = 16;
    CHECK(b.check(5, true).ok());
    b.shared.pop_back();
    CHECK_THAT(b.check(5, true).error().message, Catch::Contains("expected 5 shared input values"));
}
