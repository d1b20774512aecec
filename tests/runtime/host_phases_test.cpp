// The host phases of a GPU run, with the reference evaluator standing in for the device: a circuit
// cut at its narrow ends (compiler/passes/host_phases.h) and evaluated as three parts — the ends
// on the LLVM JIT — gives the whole circuit's outputs and input adjoints, in every semiring, on
// random circuits, hand-made cuts with no pre or no post part, and alarm's MLF circuit; with a
// device that reruns its forward pass for the backward one, and with one that keeps its values.
#include "compiler/passes/host_phases.h"
#include "ir/levels.h"
#include "runtime/engine_host_phases.h"

#include "tests/catch.hpp"
#include "tests/support/close.h"
#include "tests/support/mpe_batch_checks.h"
#include "tests/support/random_circuits.h"

#include <random>

using namespace zbddc;
using namespace zbddc::testing;

namespace {

size_t opCount(const Circuit &c) {
    size_t n = 0;
    for (OpKind k : c.kind)
        n += isOp(k);
    return n;
}

uint32_t levelCount(const Circuit &c) {
    uint32_t levels = 0;
    for (uint32_t l : asapLevels(c))
        levels = std::max(levels, l);
    return levels;
}

// Inputs valid in every semiring's linear carrier (probabilities, or costs for max/min-sum).
std::vector<double> randomInputs(size_t count, std::mt19937 &rng) {
    std::uniform_real_distribution<double> u(0.05, 1.0);
    std::vector<double> x(count);
    for (double &v : x)
        v = u(rng);
    return x;
}

// A stand-in for a device that keeps its forward values (the GPU): the reference evaluator,
// which answers adjointsAfterEvaluate from the last evaluate()'s vectors with the given inputs
// replaced, and counts those calls.
class KeepsForward final : public Engine {
  public:
    KeepsForward(std::unique_ptr<Engine> engine, size_t &keptPasses)
        : engine_(std::move(engine)), keptPasses_(keptPasses) {}
    Result<std::vector<double>> evaluate(std::span<const double> x, size_t batch) override {
        last_.assign(x.begin(), x.end());
        return engine_->evaluate(x, batch);
    }
    Result<std::vector<double>> adjoints(std::span<const double> x, size_t batch,
                                         size_t output) override {
        return engine_->adjoints(x, batch, output);
    }
    std::optional<Result<std::vector<double>>> adjointsAfterEvaluate(std::span<const double> rows,
                                                                     size_t first, size_t width,
                                                                     size_t batch,
                                                                     size_t output) override {
        const size_t n = last_.size() / batch;
        for (size_t i = 0; i < batch; ++i)
            std::copy_n(rows.begin() + i * width, width, last_.begin() + i * n + first);
        ++keptPasses_;
        return engine_->adjoints(last_, batch, output);
    }

  private:
    std::unique_ptr<Engine> engine_;
    size_t &keptPasses_;
    std::vector<double> last_;
};

// The parts of `c` cut at `hostMaxOps` as one engine (host: the JIT, device: the reference
// evaluator, with `keepsForward` one that keeps its forward values) against the whole circuit
// on the reference evaluator, over a batch of 4 vectors: every output, and every input's adjoint
// for every output. False where nothing was cut.
bool sameAsWhole(const Circuit &c, uint32_t hostMaxOps, std::mt19937 &rng,
                 bool keepsForward = false) {
    HostPhaseCircuits parts = splitHostPhases(c, hostMaxOps);
    if (!parts.hasHostLevels())
        return false;
    INFO("host ops " << hostMaxOps << ": levels " << parts.preLevels << " + " << parts.deviceLevels
                     << " + " << parts.postLevels << ", crossing " << parts.preValues << " and "
                     << parts.deviceValues);
    for (const Circuit *part : {&parts.pre, &parts.device, &parts.post})
        REQUIRE(verify(*part).ok());
    CHECK(parts.preLevels + parts.deviceLevels + parts.postLevels == levelCount(c));
    // Every op lands in one part; the pre and device parts add their seeds' products and sums.
    const size_t seedOps = (parts.preValues ? 2 * parts.preValues - 1 : 0) +
                           (parts.deviceValues ? 2 * parts.deviceValues - 1 : 0);
    CHECK(opCount(parts.pre) + opCount(parts.device) + opCount(parts.post) == opCount(c) + seedOps);

    const Semiring s = c.semiring;
    const uint32_t preLevels = parts.preLevels, postLevels = parts.postLevels;
    size_t keptPasses = 0;
    auto whole = referenceEngine(c, s, Numeric::Float64);
    REQUIRE(whole.ok());
    auto split = hostPhaseEngine(
        std::move(parts), s, Numeric::Float64,
        [&](const Circuit &part) { return cpuJitEngine(part, s, Numeric::Float64, 0); },
        [&](const Circuit &part) -> Result<std::unique_ptr<Engine>> {
            auto device = referenceEngine(part, s, Numeric::Float64);
            if (!device || !keepsForward)
                return device;
            return std::unique_ptr<Engine>(new KeepsForward(std::move(*device), keptPasses));
        });
    REQUIRE(split.ok());
    CHECK((*split)->note() == std::to_string(preLevels) + "+" + std::to_string(postLevels) +
                                  " levels on the host's JIT");
    const size_t batch = 4;
    const std::vector<double> x = randomInputs(batch * c.numInputs(), rng);
    auto want = (*whole)->evaluate(x, batch);
    auto got = (*split)->evaluate(x, batch);
    REQUIRE(want.ok());
    REQUIRE(got.ok());
    for (size_t i = 0; i < want->size(); ++i)
        CHECK(close((*got)[i], (*want)[i], 1e-12));
    for (size_t output = 0; output < c.numOutputs(); ++output) {
        auto wantAdj = (*whole)->adjoints(x, batch, output);
        auto both = (*split)->forwardBackward(x, batch, output);
        REQUIRE(wantAdj.ok());
        REQUIRE(both.ok());
        CHECK(both->outputs == *got);
        REQUIRE(both->adjoints.size() == wantAdj->size());
        for (size_t i = 0; i < wantAdj->size(); ++i) {
            INFO("output " << output << ", vector " << i / c.numInputs() << ", input "
                           << i % c.numInputs());
            CHECK(close(both->adjoints[i], (*wantAdj)[i], 1e-12));
        }
    }
    CHECK(keptPasses == (keepsForward ? c.numOutputs() : 0));
    return true;
}

} // namespace

TEST_CASE("a circuit cut at its narrow ends answers as the whole, in every semiring",
          "[host-phases]") {
    std::mt19937 rng(7);
    size_t cut = 0;
    for (Semiring s :
         {Semiring::SumProduct, Semiring::MaxProduct, Semiring::MaxSum, Semiring::MinSum})
        for (uint32_t seed = 0; seed < 4; ++seed) {
            const Circuit c =
                randomCircuit({.inputs = 8, .ops = 150, .outputs = 3, .semiring = s}, rng);
            for (uint32_t hostMaxOps : {1u, 2u, 4u, 8u})
                for (bool keepsForward : {false, true}) {
                    INFO(semiringName(s)
                         << ", circuit " << seed << ", device keeps values " << keepsForward);
                    cut += sameAsWhole(c, hostMaxOps, rng, keepsForward);
                }
        }
    CHECK(cut > 40); // most cuts leave host levels: the test compares something
}

TEST_CASE("a cut with no host-post part or no host-pre part", "[host-phases]") {
    std::mt19937 rng(8);
    // One op, then four reading it: widths 1, 4.
    Circuit narrowFirst;
    for (uint32_t i = 0; i < 3; ++i)
        narrowFirst.addInputInfo({});
    const NodeId x0 = narrowFirst.addInput(0), x1 = narrowFirst.addInput(1),
                 x2 = narrowFirst.addInput(2);
    const NodeId root = narrowFirst.addTimes(x0, x1);
    for (int k = 0; k < 4; ++k)
        narrowFirst.addOutput(k % 2 ? narrowFirst.addPlus(root, x2)
                                    : narrowFirst.addMulAdd(root, x2, x0));
    HostPhaseCircuits parts = splitHostPhases(narrowFirst, 2);
    CHECK(parts.preLevels == 1);
    CHECK(parts.postLevels == 0);
    CHECK(sameAsWhole(narrowFirst, 2, rng));

    // Four ops, then one sum of them: widths 4, 2, 1.
    Circuit narrowLast;
    for (uint32_t i = 0; i < 4; ++i)
        narrowLast.addInputInfo({});
    std::vector<NodeId> wide;
    for (uint32_t i = 0; i < 4; ++i)
        wide.push_back(
            narrowLast.addTimes(narrowLast.addInput(i), narrowLast.addInput((i + 1) % 4)));
    const NodeId half = narrowLast.addPlus(wide[0], wide[1]);
    narrowLast.addOutput(narrowLast.addPlus(half, narrowLast.addPlus(wide[2], wide[3])));
    parts = splitHostPhases(narrowLast, 2);
    CHECK(parts.preLevels == 0);
    CHECK(parts.postLevels == 2);
    CHECK(sameAsWhole(narrowLast, 2, rng));

    // Nothing wider than the limit: nothing is cut.
    CHECK_FALSE(splitHostPhases(narrowLast, 4).hasHostLevels());
}

TEST_CASE("alarm's MLF circuit cut at levels of up to 32 ops answers MAR and MPE as the whole",
          "[host-phases]") {
    std::optional<CompiledNetwork> alarm = benchmarkNetwork("alarm");
    if (!alarm)
        return;
    std::mt19937 rng(9);
    const HostPhaseCircuits parts = splitHostPhases(alarm->circuit, 32);
    CHECK(parts.preLevels > 0);
    CHECK(parts.postLevels > 0);
    for (Semiring s : {Semiring::SumProduct, Semiring::MaxProduct}) {
        Circuit c = alarm->circuit;
        c.semiring = s;
        CHECK(sameAsWhole(c, 32, rng));
        CHECK(sameAsWhole(c, 32, rng, true));
    }
}

TEST_CASE("host phases refuse numeric modes other than float64", "[host-phases]") {
    std::mt19937 rng(10);
    const Circuit c = randomCircuit({.inputs = 6, .ops = 80, .outputs = 1}, rng);
    auto refused = hostPhaseEngine(
        splitHostPhases(c, 2), Semiring::SumProduct, Numeric::Log,
        [](const Circuit &part) {
            return referenceEngine(part, Semiring::SumProduct, Numeric::Log);
        },
        [](const Circuit &part) {
            return referenceEngine(part, Semiring::SumProduct, Numeric::Log);
        });
    REQUIRE_FALSE(refused.ok());
    CHECK_THAT(refused.error().message, Catch::Contains("float64 only"));
}
