// Float32 and log32 PR and MAR on a real GPU (CudaOptions' Precision::Float32, linear and log):
// batches on asia, alarm and random networks, every answer given within its stated bound of the
// float64 reference evaluator, and alarm's possible cases answered in float32 (the bound not
// vacuous there). Exits 77 (skipped) where no GPU is usable, saying why.
#include "runtime/engine.h"
#include "runtime/model.h"
#include "runtime/tasks.h"

#include "tests/catch.hpp"
#include "tests/support/float32_checks.h"
#include "tests/support/mpe_batch_checks.h"
#include "tests/support/runtime_gpu.h"

#include <cstdio>
#include <random>

using namespace zbddc;

namespace {

const bool gpuPresent = testing::runtimeGpuPresent();

void checkOnGpu(const testing::CompiledNetwork &cn, size_t count, uint32_t seed) {
    std::mt19937 rng(seed);
    const std::vector<Evidence> cases = testing::mixedCases(cn.net, count, rng);
    DeviceOptions o;
    o.device = DeviceKind::Cuda;
    Model m = Model::fromCircuit(cn.circuit, o);
    REQUIRE(m.device() == DeviceKind::Cuda);
    for (NumericChoice mode : {NumericChoice::Float32, NumericChoice::Log32})
        for (Task task : {Task::Pr, Task::Mar}) {
            const char *name = mode == NumericChoice::Float32 ? "float32" : "log32";
            INFO(name << " " << taskName(task));
            const testing::Observed seen = testing::checkWithinBound(m, task, cases, mode);
            std::printf("%s %s: %zu cases within a bound of at most %.3g (observed %.3g on P(e), "
                        "%.3g on marginals), %zu answered in float64/log\n",
                        name, taskName(task), seen.bounded, seen.largestBound, seen.worstValue,
                        seen.worstMarginal, seen.elsewhere);
        }
}

} // namespace

TEST_CASE("GPU float32 and log32 batches on random networks are within their bound", "[gpu]") {
    std::mt19937 rng(2027);
    for (size_t n : {4, 8, 12})
        checkOnGpu(testing::compileNetwork(testing::randomBayesNet(rng, n)), 100, static_cast<uint32_t>(n));
}

TEST_CASE("GPU float32 and log32 on asia and alarm: within the bound, alarm answered in float32",
          "[gpu]") {
    for (const char *name : {"asia", "alarm"}) {
        INFO(name);
        auto cn = testing::benchmarkNetwork(name);
        if (!cn)
            continue;
        checkOnGpu(*cn, 600, 9); // more than one launch of 512 lanes
        std::mt19937 rng(13);
        std::vector<Evidence> possible;
        for (const Evidence &e : testing::mixedCases(cn->net, 64, rng))
            if (auto pr = runTask(cn->circuit, Task::Pr, e); pr && pr->value > 1e-30)
                possible.push_back(e);
        DeviceOptions o;
        o.device = DeviceKind::Cuda;
        Model m = Model::fromCircuit(cn->circuit, o);
        for (const auto &r : runTasks(m, Task::Mar, possible, {NumericChoice::Float32, {}})) {
            REQUIRE(r.ok());
            REQUIRE(r->errorBound);
            CHECK(r->numeric == Numeric::Float32);
            CHECK_THAT(r->device.label(), Catch::StartsWith("cuda: "));
        }
    }
}
