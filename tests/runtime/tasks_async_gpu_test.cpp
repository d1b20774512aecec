// runTasksAsync on a real GPU (runtime/tasks_async.h), on a stream the test creates through the
// driver wrapper: PR, MAR and MPE (traced back on the stream) of batches over several launches,
// against the reference evaluator (PR, MAR) and the MPE oracles (brute force or max-product
// variable elimination), and against runTasks on the same GPU model; the test's own event
// recorded after the batch on the same stream finds the batch done (its work is ordered after
// ours), the stream idle after get(), a second batch for the engine of a pending one refused,
// and a handle dropped unread leaves the model usable. Exits 77 (skipped) where no GPU is
// usable, saying why.
#include "backends/cuda/driver.h"
#include "runtime/engine.h"
#include "runtime/tasks.h"
#include "runtime/tasks_async.h"

#include "tests/catch.hpp"
#include "tests/support/mpe_batch_checks.h"
#include "tests/support/runtime_gpu.h"
#include "tests/support/same_answers.h"

#include <cstdio>
#include <random>

using namespace zbddc;
using namespace zbddc::testing;

namespace {

const bool gpuPresent = testing::runtimeGpuPresent();

// A stream of the caller's, as a program using zbddc would make one (here through our wrapper).
struct CallerStream {
    cuda::Device *device = nullptr;
    cuda::StreamHandle stream = nullptr;
    CallerStream() {
        auto d = cuda::openDevice(0);
        if (!d)
            FAIL("cannot open GPU 0: " << d.error().message);
        device = *d;
        auto s = device->createStream();
        if (!s)
            FAIL("cannot create a stream: " << s.error().message);
        stream = *s;
    }
    ~CallerStream() { (void)device->destroyStream(stream); }

    // Records an event of the caller's after everything enqueued so far and waits for it alone.
    void passEverythingEnqueued() {
        auto mine = device->createEvent(false);
        REQUIRE(mine.ok());
        REQUIRE(device->record(*mine, stream).ok());
        const Status waited = device->waitFor(*mine);
        device->destroyEvent(*mine);
        if (!waited)
            FAIL("the caller's own event after the batch: " << waited.error().message);
    }
};

// The random network always; asia and alarm where the shared benchmarks are.
std::vector<CompiledNetwork> networks(std::mt19937 &rng) {
    std::vector<CompiledNetwork> nets;
    nets.push_back(compileNetwork(randomBayesNet(rng, 7)));
    for (const char *name : {"asia", "alarm"})
        if (auto cn = benchmarkNetwork(name))
            nets.push_back(std::move(*cn));
    return nets;
}

} // namespace

TEST_CASE("runTasksAsync on the GPU runs on the caller's stream and answers as the reference",
          "[gpu][async]") {
    REQUIRE(gpuPresent);
    CallerStream caller;
    std::mt19937 rng(31);
    for (const CompiledNetwork &cn : networks(rng)) {
        INFO(cn.net.file << " (" << cn.net.variables.size() << " variables)");
        const size_t count = 3 * kMaxCudaLanes + 5; // more cases than one launch holds
        REQUIRE(cudaLanesFor(cn.circuit, count) < count);
        const std::vector<Evidence> cases = mixedCases(cn.net, count, rng);
        const std::vector<double> mpeWant = mpeOracles(cn.net, cases);
        Model gpu = Model::fromCircuit(cn.circuit, {.device = DeviceKind::Cuda});
        REQUIRE(gpu.device() == DeviceKind::Cuda);
        Model reference = Model::fromCircuit(cn.circuit, {.device = DeviceKind::Reference});
        for (NumericChoice numeric : {NumericChoice::Auto, NumericChoice::Log})
            for (Task t : {Task::Pr, Task::Mar, Task::Mpe}) {
                INFO(taskName(t) << (numeric == NumericChoice::Log ? " in log space" : ""));
                TaskOptions o;
                o.numeric = numeric;
                PendingTasks pending = runTasksAsync(gpu, t, cases, o, caller.stream);
                REQUIRE(pending.onStream());
                caller.passEverythingEnqueued();
                CHECK(pending.ready()); // ordered before the caller's event, so done by now
                const std::vector<Result<TaskResult>> got = pending.get();
                auto idle = caller.device->idle(caller.stream);
                REQUIRE(idle.ok());
                CHECK(*idle);
                if (t == Task::Mpe)
                    checkMpeAnswers(cn.net, cases, mpeWant, got);
                else
                    checkSameAnswers(runTasks(reference, t, cases, o), got,
                                     {.rel = 1e-10, .sameDevice = false});
                for (const auto &r : got)
                    if (r) {
                        CHECK_THAT(r->device.label(), Catch::StartsWith("cuda: "));
                        if (t == Task::Mpe) // walked on the stream, not decoded from adjoints
                            CHECK_THAT(r->device.label(), Catch::Contains("MPE traced back over"));
                    }
                // The same kernels as runTasks on this model: the same answers and notes.
                checkSameAnswers(runTasks(gpu, t, cases, o), got, {.rel = 1e-12});
            }
        // A second batch for the engine of a pending one is refused, case by case.
        {
            PendingTasks first = runTasksAsync(gpu, Task::Pr, cases, {}, caller.stream);
            const auto second = runTasksAsync(gpu, Task::Pr, cases, {}, caller.stream).get();
            for (const auto &r : second) {
                REQUIRE_FALSE(r.ok());
                CHECK_THAT(r.error().message, Catch::Contains("still pending on this model"));
            }
            const auto firstAnswers = first.get(); // before anything else runs on the model
            checkSameAnswers(runTasks(gpu, Task::Pr, cases), firstAnswers, {.rel = 1e-12});
        }
        // Dropped unread: the handle waits for its pass; the model answers again afterwards.
        { PendingTasks dropped = runTasksAsync(gpu, Task::Mar, cases, {}, caller.stream); }
        checkSameAnswers(runTasks(reference, Task::Pr, cases),
                         runTasksAsync(gpu, Task::Pr, cases, {}, caller.stream).get(),
                         {.rel = 1e-10, .sameDevice = false});
    }
}
