// runTasksAsync off the GPU (runtime/tasks_async.h): on every CPU backend it runs runTasks on a
// worker thread, ignores the stream it is given, and answers PR, MAR and MPE exactly as runTasks
// does, impossible cases carrying their own errors, on asia, alarm and random networks. And the
// GPU path's host half without a GPU: finishBatch given a first pass that ran backward too (as the
// stream's does) answers as runTasks, MPE's tie passes counted alike.
#include "runtime/task_batch.h"
#include "runtime/tasks.h"
#include "runtime/tasks_async.h"

#include "tests/catch.hpp"
#include "tests/support/cpu_backends.h"
#include "tests/support/mpe_batch_checks.h"
#include "tests/support/same_answers.h"

#include <optional>
#include <random>

using namespace zbddc;
using namespace zbddc::testing;

namespace {

// Random networks always; asia and alarm where the shared benchmarks are.
std::vector<CompiledNetwork> networks(std::mt19937 &rng) {
    std::vector<CompiledNetwork> nets;
    for (size_t n : {4, 7})
        nets.push_back(compileNetwork(randomBayesNet(rng, n)));
    for (const char *name : {"asia", "alarm"})
        if (auto cn = benchmarkNetwork(name))
            nets.push_back(std::move(*cn));
    return nets;
}

// What the stream's pass gives finishBatch, computed here on the CPU from whole input vectors:
// every output of every case and, for MAR and MPE, output 0's adjoints of the indicators in the
// same pass's semiring and arithmetic.
PassValues firstPass(Model &m, const TaskBatch &b) {
    PassValues v;
    if (b.valid.empty())
        return v;
    const std::vector<double> xs = b.inputs.dense();
    auto out = m.evaluate(b.ring, b.first, xs, b.valid.size());
    REQUIRE(out.ok());
    v.outputs = std::move(*out);
    if (b.task == Task::Mar || b.task == Task::Mpe) {
        auto adj = m.adjoints(b.ring, b.first, xs, b.valid.size(), 0);
        REQUIRE(adj.ok());
        v.adjoints = b.inputs.varyingColumns(*adj);
    }
    return v;
}

} // namespace

TEST_CASE("runTasksAsync off the GPU answers as runTasks, on a worker thread", "[tasks][async]") {
    std::mt19937 rng(11);
    for (const CompiledNetwork &cn : networks(rng)) {
        INFO(cn.net.file << " (" << cn.net.variables.size() << " variables)");
        const std::vector<Evidence> cases = mixedCases(cn.net, 97, rng);
        for (const CpuBackend &backend : kCpuBackends) {
            INFO(backend.name);
            Model m = Model::fromCircuit(cn.circuit, backend.options);
            for (Task t : {Task::Pr, Task::Mar, Task::Mpe}) {
                INFO(taskName(t));
                const auto want = runTasks(m, t, cases);
                // Off the GPU the stream is never touched: a pointer no driver made will do.
                PendingTasks pending =
                    runTasksAsync(m, t, cases, {}, reinterpret_cast<void *>(0x1234));
                CHECK_FALSE(pending.onStream());
                pending.wait();
                CHECK(pending.ready());
                checkSameAnswers(want, pending.get());
                CHECK(pending.get().empty()); // the answers are given once
            }
        }
    }
}

TEST_CASE("runTasksAsync keeps runTasks' per-case errors, numeric choices and empty batches",
          "[tasks][async]") {
    std::mt19937 rng(12);
    const CompiledNetwork cn = compileNetwork(randomBayesNet(rng, 6));
    Model m = Model::fromCircuit(cn.circuit, {.device = DeviceKind::Cpu});
    std::vector<Evidence> cases = mixedCases(cn.net, 40, rng);
    cases[3].states.pop_back(); // a case that does not match the model
    for (NumericChoice numeric : {NumericChoice::Float64, NumericChoice::Log}) {
        TaskOptions o;
        o.numeric = numeric;
        for (Task t : {Task::Pr, Task::Mar, Task::Mpe}) {
            INFO(taskName(t) << (numeric == NumericChoice::Log ? " in log space" : " in float64"));
            const auto want = runTasks(m, t, cases, o);
            REQUIRE_FALSE(want[3].ok());
            checkSameAnswers(want, runTasksAsync(m, t, cases, o).get());
        }
    }
    CHECK(runTasksAsync(m, Task::Mar, std::span<const Evidence>()).get().empty());
    // A handle dropped unread waits for its worker; the model answers again afterwards.
    { PendingTasks dropped = runTasksAsync(m, Task::Mpe, cases); }
    checkSameAnswers(runTasks(m, Task::Pr, cases), runTasksAsync(m, Task::Pr, cases).get());
}

TEST_CASE("finishBatch given a first pass that ran backward (the stream's) answers as runTasks",
          "[tasks][async]") {
    std::mt19937 rng(13);
    // The reference evaluator: its runTasks decodes an MPE batch from adjoints too (the CPU's
    // codes trace a batch back), so the two paths decode from the same first adjoints.
    const DeviceOptions decoding{.device = DeviceKind::Reference};
    auto check = [](Model &m, std::span<const Evidence> cases, Task t, const TaskOptions &o) {
        INFO(taskName(t) << (o.numeric == NumericChoice::Log ? " in log space" : ""));
        TaskBatch b = beginBatch(m, t, cases, o);
        REQUIRE_FALSE(b.failed);
        const PassValues first = firstPass(m, b);
        // runTasks answers one case alone (a traceback where the backend has one): batches only.
        checkSameAnswers(runTasks(m, t, cases, o), finishBatch(m, b, cases, o, first));
    };
    for (const CompiledNetwork &cn : networks(rng)) {
        INFO(cn.net.file);
        const std::vector<Evidence> cases = mixedCases(cn.net, 61, rng);
        Model m = Model::fromCircuit(cn.circuit, decoding);
        for (NumericChoice numeric : {NumericChoice::Auto, NumericChoice::Log}) {
            TaskOptions o;
            o.numeric = numeric;
            for (Task t : {Task::Pr, Task::Mar, Task::Mpe})
                check(m, cases, t, o);
        }
    }
    // Ties on purpose: the device note counts the passes, the first one included.
    const CompiledNetwork coins = compileNetwork(tiedCoins());
    const std::vector<Evidence> cases = everyCoinCase();
    Model m = Model::fromCircuit(coins.circuit, decoding);
    check(m, cases, Task::Mpe, {});
}
