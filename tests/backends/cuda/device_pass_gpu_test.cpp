// The device-resident circuit pass (Model::passOnDevice) against the host pass over the same
// literal weights (part of test_cuda_gpu, which exits 77 where no GPU is present): the weights
// put in device memory once, the outputs and the weights' adjoints written to device memory,
// on the legacy default stream (waited for) and on a stream of the test's own. In linear
// float64 and float32 nothing is converted, so the bits are the host pass's; in log space the
// device takes each weight's log, which may differ from the host's std::log in the last bit
// (checked within 1e-12 of the linear value, a float32 bit in log32). A
// warm device pass copies nothing from the host and allocates nothing.
#include "backends/cuda/driver.h"
#include "compiler/frontends/circuits/circuit_load.h"
#include "compiler/frontends/circuits/literal_weights.h"
#include "runtime/model.h"

#include "tests/catch.hpp"
#include "tests/support/logic_circuit_oracles.h"
#include "tests/support/random_literal_weights.h"

#include <cmath>
#include <random>

using namespace zbddc;

namespace {

// A float64 array in device memory, and back.
cuda::DeviceBuffer onDevice(cuda::Device &d, const std::vector<double> &values) {
    auto buf = cuda::uploadArray(d, values);
    REQUIRE(buf.ok());
    return std::move(*buf);
}

cuda::DeviceBuffer zeros(cuda::Device &d, size_t count) {
    return onDevice(d, std::vector<double>(count, 0.0));
}

std::vector<double> fromDevice(cuda::Device &d, const cuda::DeviceBuffer &buf, size_t count) {
    std::vector<double> v(count);
    if (count > 0)
        REQUIRE(d.download(v.data(), buf.ptr(), count * sizeof(double)).ok());
    return v;
}

// Linear values compare bit for bit (tolerance 0). Log-space values are logs, so an error in the
// last bit of one weight's log is an absolute error in every log downstream: a relative error
// of the linear value is that absolute error in its log (and logs near 0 have no useful relative
// error of their own).
void checkClose(const std::vector<double> &device, const std::vector<double> &host,
                double tolerance) {
    REQUIRE(device.size() == host.size());
    for (size_t i = 0; i < host.size(); ++i) {
        INFO("value " << i << ": device " << device[i] << ", host " << host[i]);
        if (tolerance == 0 || host[i] == device[i]) // equal infinities (a log-space zero) too
            CHECK(device[i] == host[i]);
        else
            CHECK(std::abs(device[i] - host[i]) <= tolerance * std::max(1.0, std::abs(host[i])));
    }
}

struct Delta {
    uint64_t allocations, uploads;
};

template <class F> Delta countsOf(cuda::Device &d, F &&pass) {
    const cuda::DeviceCounts before = d.counts();
    pass();
    const cuda::DeviceCounts after = d.counts();
    return {after.allocations - before.allocations, after.uploads - before.uploads};
}

} // namespace

TEST_CASE("a pass over literal weights in device memory gives the host pass's values and "
          "gradients",
          "[gpu][circuits]") {
    auto device = cuda::openDevice(0);
    REQUIRE(device.ok());
    cuda::Device &d = **device;
    auto stream = d.createStream();
    REQUIRE(stream.ok());
    std::mt19937 rng(5);
    const Semiring sp = Semiring::SumProduct;
    for (const char *file : {"cnf_f.sdd", "cnf_c.nnf", "cnf_e.sdd"}) {
        auto c = loadLogicCircuit(testing::kCircuitFiles + file);
        REQUIRE(c.ok());
        REQUIRE(c->numOutputs() == 1);
        // 300 vectors at 128 lanes run in three launches, the last part full.
        for (auto [count, maxLanes] : {std::pair<size_t, uint32_t>{5, 0}, {128, 0}, {300, 128}}) {
            const InputBatch host = literalWeightBatch(
                *c, testing::randomLiteralWeights(literalVariableCount(*c), count, rng));
            const size_t m = host.varying.size();
            cuda::DeviceBuffer weights = onDevice(d, host.values);
            for (Numeric numeric :
                 {Numeric::Float64, Numeric::Log, Numeric::Float32, Numeric::Log32}) {
                INFO(file << ", " << count << " vectors, " << numericName(numeric));
                // A last-bit difference of a log in float64 rounds to the same float32 nearly
                // always; where it does not, it is float32's last bit.
                const double logs = numeric == Numeric::Log     ? 1e-12
                                    : numeric == Numeric::Log32 ? 1e-6
                                                                : 0;
                Model model =
                    Model::fromCircuit(*c, {.device = DeviceKind::Cuda, .cudaMaxLanes = maxLanes});
                REQUIRE(model.device() == DeviceKind::Cuda);
                auto forward = model.evaluate(sp, numeric, host);
                auto both = model.forwardBackward(sp, numeric, host, 0);
                REQUIRE(forward.ok());
                REQUIRE(both.ok());
                for (void *on : {static_cast<void *>(nullptr), *stream}) {
                    INFO((on ? "the test's stream" : "the default stream, waited for"));
                    cuda::DeviceBuffer outputs = zeros(d, count), adjoints = zeros(d, count * m);
                    DeviceInputBatch batch{host.shared, host.varying,  weights.ptr(),
                                           count,       outputs.ptr(), 0};
                    auto ran = model.passOnDevice(sp, numeric, batch, std::nullopt, on);
                    REQUIRE(ran.has_value());
                    REQUIRE(ran->ok());
                    if (on)
                        REQUIRE(d.synchronize(on).ok());
                    checkClose(fromDevice(d, outputs, count), *forward, logs);
                    batch.outputs = 0; // the backward pass alone writes the adjoints
                    batch.adjoints = adjoints.ptr();
                    ran = model.passOnDevice(sp, numeric, batch, 0, on);
                    REQUIRE(ran.has_value());
                    REQUIRE(ran->ok());
                    if (on)
                        REQUIRE(d.synchronize(on).ok());
                    checkClose(fromDevice(d, adjoints, count * m), both->adjoints, logs);
                    // Warm, with both results: nothing copied in, nothing allocated.
                    batch.outputs = outputs.ptr();
                    const Delta warm = countsOf(d, [&] {
                        ran = model.passOnDevice(sp, numeric, batch, 0, on);
                        if (on)
                            REQUIRE(d.synchronize(on).ok());
                    });
                    REQUIRE(ran->ok());
                    CHECK(warm.uploads == 0);
                    CHECK(warm.allocations == 0);
                    checkClose(fromDevice(d, outputs, count), both->outputs, logs);
                    checkClose(fromDevice(d, adjoints, count * m), both->adjoints, logs);
                }
            }
        }
    }
    REQUIRE(d.destroyStream(*stream).ok());
}

TEST_CASE("a device pass without the memory it needs is refused", "[gpu][circuits]") {
    auto c = loadLogicCircuit(testing::kCircuitFiles + "cnf_f.sdd");
    REQUIRE(c.ok());
    std::mt19937 rng(6);
    const InputBatch host =
        literalWeightBatch(*c, testing::randomLiteralWeights(literalVariableCount(*c), 4, rng));
    Model model = Model::fromCircuit(*c, {.device = DeviceKind::Cuda});
    REQUIRE(model.device() == DeviceKind::Cuda);
    auto refused = [&](const DeviceInputBatch &b, std::optional<size_t> adjointsOf) {
        auto r = model.passOnDevice(Semiring::SumProduct, Numeric::Float64, b, adjointsOf);
        REQUIRE(r.has_value());
        REQUIRE_FALSE(r->ok());
        return r->error().message;
    };
    DeviceInputBatch b{host.shared, host.varying, 0, 4, 0, 0};
    CHECK_THAT(refused(b, std::nullopt), Catch::Contains("varying input values"));
    b.values = 8; // never read: the adjoints' address is missing first
    CHECK_THAT(refused(b, 0), Catch::Contains("adjoints"));
    CHECK_THAT(refused(b, 1), Catch::Contains("output 1 out of range"));
}
