// Float32 and log32 answers (runtime/tasks_float32.h) and their a-priori error bound
// (runtime/float32_bound.h), on the reference evaluator's exact float32 emulation: every answer
// given is within its stated bound of the float64 reference on asia, alarm and random networks;
// the bound is not vacuous on alarm; linear float32 underflows on a long chain and those cases are
// answered in float64 instead, saying so; the CPU, which has no float32 code, answers in float64
// and says why; the analysis a model keeps for batches of the same input ranges is a fresh one's.
#include "runtime/float32_bound.h"
#include "runtime/tasks.h"

#include "tests/catch.hpp"
#include "tests/support/mpe_batch_checks.h"
#include "tests/support/float32_checks.h"
#include "tests/support/network_answer_checks.h"

#include <cmath>
#include <random>

using namespace zbddc;

namespace {

Model onReference(const Circuit &c) {
    DeviceOptions o;
    o.device = DeviceKind::Reference;
    return Model::fromCircuit(c, o);
}

void checkNetwork(const testing::CompiledNetwork &cn, size_t count, uint32_t seed) {
    std::mt19937 rng(seed);
    const std::vector<Evidence> cases = testing::mixedCases(cn.net, count, rng);
    Model m = onReference(cn.circuit);
    for (NumericChoice mode : {NumericChoice::Float32, NumericChoice::Log32})
        for (Task task : {Task::Pr, Task::Mar}) {
            INFO((mode == NumericChoice::Float32 ? "float32 " : "log32 ") << taskName(task));
            const testing::Observed seen = testing::checkWithinBound(m, task, cases, mode);
            WARN((mode == NumericChoice::Float32 ? "float32 " : "log32 ")
                 << taskName(task) << ": " << seen.bounded << " cases within a bound of at most "
                 << seen.largestBound << " (observed " << seen.worstValue << " on P(e), "
                 << seen.worstMarginal << " on marginals), " << seen.elsewhere
                 << " answered in float64/log");
        }
}

} // namespace

TEST_CASE("float32 and log32 answers are within their stated bound of float64 (random networks)",
          "[float32]") {
    std::mt19937 rng(2026);
    for (size_t n : {3, 6, 9, 12}) {
        INFO(n << " variables");
        checkNetwork(testing::compileNetwork(testing::randomBayesNet(rng, n)), 30, static_cast<uint32_t>(n));
    }
}

TEST_CASE("float32 and log32 on asia and alarm: within the bound, and the bound is not vacuous",
          "[float32]") {
    for (const char *name : {"asia", "alarm"}) {
        INFO(name);
        auto cn = testing::benchmarkNetwork(name);
        if (!cn)
            continue;
        checkNetwork(*cn, 40, 7);
        // Not vacuous: alarm's sampled (possible) cases are answered in float32 with a bound
        // below 1e-2 on P(e) and on every marginal.
        std::mt19937 rng(11);
        std::vector<Evidence> possible;
        for (const Evidence &e : testing::mixedCases(cn->net, 20, rng))
            if (auto pr = runTask(cn->circuit, Task::Pr, e); pr && pr->value > 1e-30)
                possible.push_back(e);
        REQUIRE(!possible.empty());
        Model m = onReference(cn->circuit);
        for (const auto &r : runTasks(m, Task::Mar, possible, {NumericChoice::Float32, {}})) {
            REQUIRE(r.ok());
            REQUIRE(r->errorBound);
            CHECK(r->numeric == Numeric::Float32);
            CHECK(r->errorBound->value < 1e-2);
            CHECK(r->errorBound->marginals < 1e-2);
        }
    }
}

TEST_CASE("linear float32 underflows on a long chain: those cases are answered in float64, saying "
          "so; log32 keeps them",
          "[float32]") {
    // X0 -> ... -> X99, every variable observed in the state its parent makes unlikely (0.3):
    // P(e) = 0.5 * 0.3^99, about 10^-52, below float32's least subnormal.
    BayesNet net;
    for (uint32_t v = 0; v < 100; ++v) {
        BnVariable x{"X" + std::to_string(v), {"a", "b"}, {}, {}};
        if (v == 0)
            x.cpt = {0.5, 0.5};
        else
            x.parents = {v - 1}, x.cpt = {0.7, 0.3, 0.3, 0.7};
        net.variables.push_back(std::move(x));
    }
    const testing::CompiledNetwork cn = testing::compileNetwork(std::move(net));
    Evidence e;
    for (uint32_t v = 0; v < 100; ++v)
        e.states.push_back(v % 2);
    const double log10Pe = std::log10(0.5) + 99 * std::log10(0.3);
    Model m = onReference(cn.circuit);
    auto f32 = runTask(m, Task::Mar, e, {NumericChoice::Float32, {}});
    REQUIRE(f32.ok());
    CHECK(!f32->errorBound);
    CHECK(f32->numeric == Numeric::Float64);
    CHECK_THAT(f32->device.label(), Catch::Contains("answered in float64"));
    CHECK(f32->log10 == Approx(log10Pe).epsilon(1e-10));
    // The reference's own float32 value is indeed lost.
    auto raw = m.evaluate(Semiring::SumProduct, Numeric::Float32,
                          *inputVector(m.interface(), e, {}));
    REQUIRE(raw.ok());
    CHECK((*raw)[0] < 0x1p-126);

    auto log32 = runTask(m, Task::Mar, e, {NumericChoice::Log32, {}});
    REQUIRE(log32.ok());
    REQUIRE(log32->errorBound);
    CHECK(log32->numeric == Numeric::Log32);
    CHECK(std::fabs(log32->log10 - log10Pe) * std::log(10.0) <= log32->errorBound->logAbsolute);
    WARN("log32 on the chain: bound " << log32->errorBound->logAbsolute << " on ln P(e), observed "
                                      << std::fabs(log32->log10 - log10Pe) * std::log(10.0));
}

TEST_CASE("the CPU has no float32 code: it answers in float64 and says why; MPE and EVAL refuse",
          "[float32]") {
    std::mt19937 rng(3);
    const testing::CompiledNetwork cn = testing::compileNetwork(testing::randomBayesNet(rng, 5));
    DeviceOptions o;
    o.device = DeviceKind::Cpu;
    Model m = Model::fromCircuit(cn.circuit, o);
    const std::vector<Evidence> cases = testing::mixedCases(cn.net, 4, rng);
    for (const auto &r : runTasks(m, Task::Pr, cases, {NumericChoice::Float32, {}}))
        if (r) {
            CHECK(!r->errorBound);
            CHECK_THAT(r->device.label(),
                       Catch::Contains("float32 runs on the GPU only, answered in float64"));
        }
    auto mpe = runTask(m, Task::Mpe, cases[1], {NumericChoice::Log32, {}});
    REQUIRE(!mpe.ok());
    CHECK_THAT(mpe.error().message, Catch::Contains("answers pr and mar"));
}

TEST_CASE("the rounding count follows the circuit: a sum adds one to the larger, a product to both",
          "[float32]") {
    Circuit c;
    for (int i = 0; i < 3; ++i)
        c.addInputInfo({});
    const NodeId x0 = c.addInput(0), x1 = c.addInput(1), x2 = c.addInput(2);
    const NodeId p = c.addTimes(x0, x1);           // 1 + 1 + 1 (0.1 rounds)
    const NodeId s = c.addPlus(p, x2);             // max(3, 0) + 1
    c.addOutput(c.addTimes(s, s));                 // 4 + 4 + 1
    const std::vector<double> xs = {0.1, 0.3, 1.0, 0.1, 0.3, 0.0};
    const Float32Analysis an = analyzeFloat32(c, Numeric::Float32, xs);
    REQUIRE(an.unusable.empty());
    CHECK(an.rounds == 9);
    CHECK(gammaFloat32(9) == Approx(9 * 0x1p-24 / (1 - 9 * 0x1p-24)));
    const ErrorBound b = float32Bound(an, 1.0);
    CHECK(b.value == Approx(gammaFloat32(9)).epsilon(1e-6));
    CHECK(!std::isfinite(float32Bound(an, 0.0).value)); // a zero gives no bound
    const std::vector<double> negative = {-0.1, 0.3, 1.0};
    CHECK(!analyzeFloat32(c, Numeric::Float32, negative).unusable.empty());
}

namespace {

// The cases' input vectors, one after another (as a batch holds them).
InputBatch batchInputs(const Model &m, const std::vector<Evidence> &cases) {
    auto batch = evidenceBatch(m.interface());
    REQUIRE(batch.ok());
    for (const Evidence &e : cases)
        addEvidence(m.interface(), e, *batch);
    return *batch;
}

} // namespace

TEST_CASE("the analysis is made once for batches of the same input ranges and equals a fresh one",
          "[float32]") {
    std::mt19937 rng(5);
    const testing::CompiledNetwork cn = testing::compileNetwork(testing::randomBayesNet(rng, 8));
    const Circuit &c = cn.circuit;
    Model m = onReference(c);
    // Two batches of other cases, each with a case without evidence: every indicator is 1 in
    // some case of both, so their ranges agree.
    std::vector<Evidence> first = testing::mixedCases(cn.net, 12, rng);
    std::vector<Evidence> second = testing::mixedCases(cn.net, 7, rng);
    first.push_back(noEvidence(c.variables));
    second.insert(second.begin(), noEvidence(c.variables));
    // A third whose every variable but the last is observed in every case, in the states of one
    // sample (P(e) > 0): their other indicators are never 1, so its ranges and its analysis
    // differ (a product always 0 is exact and passes nothing back).
    const std::vector<uint32_t> sample = testing::ancestralSample(cn.net, rng);
    std::vector<Evidence> pinned = second;
    for (Evidence &e : pinned)
        for (uint32_t v = 0; v + 1 < c.variables.size(); ++v)
            e.states[v] = sample[v];
    const InputBatch b1 = batchInputs(m, first), b2 = batchInputs(m, second),
                     b3 = batchInputs(m, pinned);
    const std::vector<double> xs1 = b1.dense(), xs2 = b2.dense(), xs3 = b3.dense();
    REQUIRE(xs1 != xs2);
    // The ranges of a batch of shared and varying inputs are those of its vectors whole.
    CHECK(inputRanges(c, b1) == inputRanges(c, xs1));
    CHECK(inputRanges(c, b2) == inputRanges(c, xs2));
    CHECK(inputRanges(c, b3) == inputRanges(c, xs3));
    REQUIRE(inputRanges(c, xs1) == inputRanges(c, xs2));
    REQUIRE(inputRanges(c, xs1) != inputRanges(c, xs3));
    CHECK(analyzeFloat32(c, Numeric::Log32, xs1) != analyzeFloat32(c, Numeric::Log32, xs3));
    CHECK(analyzeFloat32(c, Numeric::Float32, xs1) != analyzeFloat32(c, Numeric::Float32, xs3));

    Float32AnalysisCache cache;
    auto kept = [&](Numeric n, const std::vector<double> &xs) -> const Float32Analysis & {
        return cache.analysis(c, n, inputRanges(c, xs));
    };
    CHECK(kept(Numeric::Float32, xs1) == analyzeFloat32(c, Numeric::Float32, xs1));
    CHECK(cache.analysesMade() == 1);
    CHECK(kept(Numeric::Float32, xs2) == analyzeFloat32(c, Numeric::Float32, xs2));
    CHECK(cache.analysesMade() == 1); // kept
    CHECK(kept(Numeric::Float32, xs3) == analyzeFloat32(c, Numeric::Float32, xs3));
    CHECK(cache.analysesMade() == 2); // other ranges: made again
    CHECK(kept(Numeric::Log32, xs3) == analyzeFloat32(c, Numeric::Log32, xs3));
    CHECK(kept(Numeric::Float32, xs3) == analyzeFloat32(c, Numeric::Float32, xs3));
    CHECK(cache.analysesMade() == 3); // one per numeric mode, the float32 one still kept

    // Through the tasks: each batch's bounds on the model that keeps its analysis are the bounds
    // of a fresh analysis of that batch, read at the emulated float32 output.
    for (NumericChoice choice : {NumericChoice::Float32, NumericChoice::Log32}) {
        const Numeric mode = choice == NumericChoice::Float32 ? Numeric::Float32 : Numeric::Log32;
        for (const auto *batch : {&first, &second, &pinned}) {
            const std::vector<double> xs = batchInputs(m, *batch).dense();
            const Float32Analysis fresh = analyzeFloat32(c, mode, xs);
            const auto got = runTasks(m, Task::Mar, *batch, {choice, {}});
            auto outputs = m.evaluate(Semiring::SumProduct, mode, xs, batch->size());
            REQUIRE(outputs.ok());
            size_t bounded = 0;
            for (size_t k = 0; k < batch->size(); ++k) {
                if (!got[k] || !got[k]->errorBound)
                    continue;
                ++bounded;
                const ErrorBound want = float32Bound(fresh, (*outputs)[k * m.numOutputs()]);
                CHECK(got[k]->errorBound->value == want.value);
                CHECK(got[k]->errorBound->logAbsolute == want.logAbsolute);
                CHECK(got[k]->errorBound->marginals == want.marginals);
            }
            CHECK(bounded > 0);
        }
    }
}
