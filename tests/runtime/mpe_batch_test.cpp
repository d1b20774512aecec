// Batched MPE on the MLF route through runTasks on every CPU backend (decoded from adjoints on the
// reference evaluator, runtime/mpe_decode.h; traced back on the JIT and the data-driven loop):
// the same answers as the per-case
// path, against brute force and max-product variable elimination with each assignment's
// probability recomputed from the CPTs, on asia, alarm and random networks over batches of 1, 7
// and 1,024 cases, impossible cases included (the CPU's codes also in log space); and on a network
// tied on purpose, the number of decoding's batched passes: 1 + the most tie rounds of any case.
#include "runtime/mpe_decode.h"
#include "runtime/tasks.h"

#include "tests/catch.hpp"
#include "tests/support/cpu_backends.h"
#include "tests/support/mpe_batch_checks.h"

#include <random>

using namespace zbddc;
using namespace zbddc::testing;

namespace {

// Whether a backend walks its terms back, a batch's and one case's (the data-driven loop keeps
// every value; the JIT's code writes every op's value for the walk), rather than decoding them
// from adjoints.
bool walks(const CpuBackend &b) {
    return b.options.device == DeviceKind::Cpu;
}

// The batch against the same model answering each case alone (runTask): the same cases fail, with
// the same values in the same arithmetic. Where both answer the same way, the same assignments
// (the JIT and the loop walk both alike); the reference traces one case back but decodes a batch,
// which may pick another optimum among ties, so there the oracle alone judges its assignments.
void checkSameAsAlone(Model &m, std::span<const Evidence> cases,
                      const std::vector<Result<TaskResult>> &batch) {
    const bool sameWay = m.device() != DeviceKind::Reference;
    for (size_t i = 0; i < cases.size(); ++i) {
        INFO("case " << i);
        const auto alone = runTask(m, Task::Mpe, cases[i]);
        REQUIRE(batch[i].ok() == alone.ok());
        if (!alone) {
            CHECK(batch[i].error().message == alone.error().message);
            continue;
        }
        CHECK(batch[i]->numeric == alone->numeric);
        CHECK(batch[i]->log10 == Approx(alone->log10).epsilon(1e-12));
        if (sameWay)
            CHECK(batch[i]->assignment == alone->assignment);
    }
}

// `count` mixed cases of `net` on every CPU backend: the oracles and the per-case path; from 2
// cases one is possible, from 7 one impossible, so that both are tested.
void checkBatchOnEveryBackend(const CompiledNetwork &cn, size_t count, std::mt19937 &rng) {
    const std::vector<Evidence> cases = mixedCases(cn.net, count, rng);
    const std::vector<double> want = mpeOracles(cn.net, cases);
    if (count >= 2) // case 1 is sampled
        CHECK(std::count(want.begin(), want.end(), 0.0) < static_cast<long>(count));
    if (count >= 7) // case 5 is contradicted
        CHECK(std::count(want.begin(), want.end(), 0.0) > 0);
    for (const CpuBackend &b : kCpuBackends) {
        INFO(b.name << ", " << count << " cases");
        Model m = Model::fromCircuit(cn.circuit, b.options);
        const auto batch = runTasks(m, Task::Mpe, cases);
        checkMpeAnswers(cn.net, cases, want, batch);
        checkSameAsAlone(m, cases, batch);
        // The CPU's codes walk a batch and one case; the reference one case only.
        const bool traced = walks(b) || (count == 1 && m.device() == DeviceKind::Reference);
        const char *how = !traced     ? "MPE decoded from max-product adjoints"
                          : count > 1 ? "MPE traced back over"
                                      : "MPE traced back";
        for (const auto &r : batch)
            if (r)
                CHECK_THAT(r->device.label(), Catch::Contains(how));
        if (count > 1 && walks(b)) { // the walk over natural logs (max-sum)
            TaskOptions log;
            log.numeric = NumericChoice::Log;
            const auto inLogs = runTasks(m, Task::Mpe, cases, log);
            checkMpeAnswers(cn.net, cases, want, inLogs);
            for (const auto &r : inLogs)
                if (r)
                    CHECK_THAT(r->device.label(), Catch::Contains("log; MPE traced back over"));
        }
    }
}

// decodeMpe itself over `cases`, from their max-product values on `m`.
MpeBatch decodeBatch(Model &m, std::span<const Evidence> cases) {
    std::vector<double> xs;
    for (const Evidence &e : cases) {
        auto x = inputVector(m.interface(), e);
        REQUIRE(x.ok());
        xs.insert(xs.end(), x->begin(), x->end());
    }
    auto best = m.evaluate(Semiring::MaxProduct, Numeric::Float64, xs, cases.size());
    REQUIRE(best.ok());
    auto decoded = decodeMpe(m, Numeric::Float64, cases, {}, *best);
    REQUIRE(decoded.ok());
    return std::move(*decoded);
}

} // namespace

TEST_CASE("batched MPE equals the per-case path and the oracles on asia and alarm",
          "[mpe][benchmarks]") {
    std::mt19937 rng(11);
    for (const char *name : {"asia", "alarm"}) {
        INFO(name);
        const auto cn = benchmarkNetwork(name);
        if (!cn)
            continue;
        for (size_t count : {1, 7, 1024})
            checkBatchOnEveryBackend(*cn, count, rng);
    }
}

TEST_CASE("batched MPE equals the per-case path and brute force on random networks", "[mpe]") {
    std::mt19937 rng(12);
    for (int k = 0; k < 25; ++k) {
        INFO("network " << k);
        const CompiledNetwork cn = compileNetwork(randomBayesNet(rng, 3 + k % 6));
        checkBatchOnEveryBackend(cn, k % 2 ? 1 : 7, rng);
    }
    const CompiledNetwork cn = compileNetwork(randomBayesNet(rng, 7));
    checkBatchOnEveryBackend(cn, 1024, rng);
}

TEST_CASE("tied cases are resolved together: 1 + the most tie rounds of any case, not their sum",
          "[mpe]") {
    const CompiledNetwork cn = compileNetwork(tiedCoins());
    const std::vector<Evidence> cases = everyCoinCase();
    const std::vector<double> want = mpeOracles(cn.net, cases);
    std::vector<Evidence> possible;
    uint32_t mostRounds = 0, sumRounds = 0;
    for (size_t i = 0; i < cases.size(); ++i) {
        CHECK((want[i] > 0) == possibleCoins(cases[i]));
        if (want[i] > 0) {
            possible.push_back(cases[i]);
            mostRounds = std::max(mostRounds, tieRounds(cases[i]));
            sumRounds += tieRounds(cases[i]);
        }
    }
    REQUIRE(mostRounds == 4);
    for (const CpuBackend &b : kCpuBackends) {
        INFO(b.name);
        Model m = Model::fromCircuit(cn.circuit, b.options);
        for (const Evidence &e : possible) // alone: one pass per round, and one more
            CHECK(decodeBatch(m, std::span(&e, 1)).passes == 1 + tieRounds(e));
        const MpeBatch all = decodeBatch(m, cases);
        CHECK(all.passes == 1 + mostRounds);
        CHECK(all.passes < 1 + sumRounds);
        // Seven cases of 0, 1, 1, 2, 2, 3 and 0 rounds (9 in all): 4 passes.
        std::vector<Evidence> seven;
        std::vector<char> taken(possible.size(), 0);
        for (uint32_t rounds : {0, 1, 1, 2, 2, 3, 0})
            for (size_t i = 0; i < possible.size(); ++i)
                if (!taken[i] && tieRounds(possible[i]) == rounds) {
                    taken[i] = 1;
                    seven.push_back(possible[i]);
                    break;
                }
        REQUIRE(seven.size() == 7);
        CHECK(decodeBatch(m, seven).passes == 4);
        const auto batch = runTasks(m, Task::Mpe, cases);
        checkMpeAnswers(cn.net, cases, want, batch);
        checkSameAsAlone(m, cases, batch);
        // decodeMpe above ran on every backend; runTasks traces on the CPU's codes, in one pass.
        const std::string note =
            walks(b)
                ? "MPE traced back over " + std::to_string(possible.size()) + " cases"
                : "MPE decoded from max-product adjoints, " + std::to_string(1 + mostRounds) +
                      " passes over " + std::to_string(possible.size()) + " cases";
        CHECK_THAT(batch[242]->device.label(), Catch::Contains(note));
    }
}

TEST_CASE("a traced batch decodes from adjoints the cases whose walk stopped, and says so",
          "[mpe][traceback]") {
    // max(λa·λb·0.6, λa·0.3): with nothing observed the best term holds both states of v, so the
    // walk stops there; observing v = a leaves the second term, a path the walk finishes.
    Circuit c;
    c.semiring = Semiring::MaxProduct;
    c.variables.push_back({"v", {"a", "b"}});
    c.addInputInfo({InputKind::Indicator, 0, 0, 0.0, ""});
    c.addInputInfo({InputKind::Indicator, 0, 1, 0.0, ""});
    const NodeId a = c.addInput(0), b = c.addInput(1);
    const NodeId both = c.addTimes(c.addTimes(a, b), c.addConst(0.6));
    c.addOutput(c.addPlus(both, c.addTimes(a, c.addConst(0.3))));
    REQUIRE(verify(c).ok());
    const std::vector<Evidence> cases = {{{kNone}, {}}, {{0}, {}}, {{kNone}, {}}, {{0}, {}}};
    Model reference = Model::fromCircuit(c, {.device = DeviceKind::Reference});
    const auto decoded = runTasks(reference, Task::Mpe, cases);
    for (const CpuBackend &backend : kCpuBackends) {
        if (!walks(backend))
            continue;
        INFO(backend.name);
        Model m = Model::fromCircuit(c, backend.options);
        const auto traced = runTasks(m, Task::Mpe, cases);
        for (size_t k = 0; k < cases.size(); ++k) {
            INFO("case " << k);
            REQUIRE(traced[k].ok());
            REQUIRE(decoded[k].ok());
            CHECK(traced[k]->value == decoded[k]->value);
            CHECK(traced[k]->assignment == decoded[k]->assignment);
            if (k % 2 == 0) { // the walk stopped: decoded, the reason in the note
                CHECK(traced[k]->value == Approx(0.6));
                CHECK_THAT(traced[k]->device.label(),
                           Catch::Contains("MPE decoded from max-product adjoints") &&
                               Catch::Contains("not traced: two states of one variable"));
            } else {
                CHECK(traced[k]->value == Approx(0.3));
                CHECK(traced[k]->assignment == std::vector<uint32_t>{0});
                CHECK_THAT(traced[k]->device.label(),
                           Catch::Contains("MPE traced back over 2 cases"));
            }
        }
    }
}
