// The runtime Model on the LLVM JIT against the reference evaluator (the oracle): PR, MAR and MPE
// on the example and on asia/alarm, the log-space fallback, MPE decoding with ties, device
// selection and its fallback note, model.so metadata errors.
#include "runtime/engine.h"
#include "runtime/model.h"
#include "runtime/mpe_decode.h"
#include "runtime/shared_objects/shared_model.h"
#include "runtime/tasks.h"
#include "pipeline/load_model.h"

#include "tests/catch.hpp"

#include <cmath>
#include <filesystem>
#include <random>

using namespace zbddc;

namespace {

Model jit(const Circuit &c) {
    DeviceOptions o;
    o.device = DeviceKind::Cpu;
    o.cpuCode = DeviceOptions::CpuCode::Jit; // these tests are the JIT's
    return Model::fromCircuit(c, o);
}

// Random evidence on about a third of the variables.
Evidence randomEvidence(const Circuit &c, std::mt19937 &rng) {
    Evidence e = noEvidence(c.variables);
    for (size_t v = 0; v < c.variables.size(); ++v)
        if (rng() % 3 == 0)
            e.states[v] = rng() % c.variables[v].states.size();
    return e;
}

// The joint P(x, e) of a full assignment, on the reference evaluator.
double jointOf(const Circuit &c, const std::vector<uint32_t> &assignment) {
    Evidence e{assignment, {}};
    auto r = runTask(c, Task::Pr, e);
    REQUIRE(r.ok());
    return r->value;
}

void checkAgainstReference(const Circuit &c, Model &m, const Evidence &e) {
    for (Task t : {Task::Pr, Task::Mar, Task::Mpe}) {
        INFO(taskName(t));
        auto want = runTask(c, t, e);
        auto got = runTask(m, t, e);
        REQUIRE(want.ok());
        if (t == Task::Mar && want->value == 0)
            continue;
        REQUIRE(got.ok());
        CHECK_THAT(got->device.label(), Catch::StartsWith("cpu (LLVM JIT"));
        CHECK(got->numeric == want->numeric);
        CHECK(got->log10 == Approx(want->log10).epsilon(1e-12));
        for (size_t v = 0; v < want->marginals.size(); ++v)
            for (size_t s = 0; s < want->marginals[v].size(); ++s)
                CHECK(got->marginals[v][s] == Approx(want->marginals[v][s]).margin(1e-12));
        if (t == Task::Mpe && want->value > 0) {
            // Ties may pick another optimum: the traced assignment must reach the MPE value.
            REQUIRE(got->assignment.size() == c.variables.size());
            for (size_t v = 0; v < e.states.size(); ++v)
                if (e.states[v] != kNone)
                    CHECK(got->assignment[v] == e.states[v]);
            std::vector<uint32_t> full = got->assignment;
            for (uint32_t &s : full)
                if (s == kNone)
                    s = 0; // on no optimal term: the circuit does not depend on it
            CHECK(jointOf(c, full) == Approx(want->value).epsilon(1e-12));
            CHECK_THAT(got->device.label(),
                       Catch::Contains("MPE traced back")); // over the JIT's values
        }
    }
}

Circuit example() {
    auto c = loadCircuit(ZBDDC_SOURCE_DIR "/examples/wetgrass.zdd");
    REQUIRE(c.ok());
    return std::move(*c);
}

} // namespace

TEST_CASE("the JIT answers PR, MAR and MPE like the reference evaluator on the example", "[model]") {
    const Circuit c = example();
    Model m = jit(c);
    CHECK(m.device() == DeviceKind::Cpu);
    for (int w = -1; w < 2; ++w) {
        Evidence e = noEvidence(c.variables);
        if (w >= 0)
            e.states[1] = w;
        checkAgainstReference(c, m, e);
    }
    auto mpe = runTask(m, Task::Mpe, noEvidence(c.variables));
    REQUIRE(mpe.ok());
    CHECK(mpe->assignment == std::vector<uint32_t>{1, 1}); // Rain=no, WetGrass=no: 0.72
    CHECK(mpe->value == Approx(0.72));
}

TEST_CASE("the JIT answers like the reference evaluator on asia and alarm", "[model][benchmarks]") {
    for (const char *name : {"asia", "alarm"}) {
        const std::string path = std::string(ZBDDC_BENCHMARKS_DIR) + "/bn/" + name + ".bif";
        REQUIRE(std::filesystem::exists(path));
        INFO(name);
        auto c = loadCircuit(path);
        REQUIRE(c.ok());
        Model m = jit(*c);
        std::mt19937 rng(7);
        checkAgainstReference(*c, m, noEvidence(c->variables));
        for (int k = 0; k < 4; ++k)
            checkAgainstReference(*c, m, randomEvidence(*c, rng));
    }
}

// Two fair coins that always differ: every indicator lies on an optimal term, yet picking each
// variable's first best state alone gives A=0, B=0 of probability 0. Decoding must not.
TEST_CASE("MPE decoding breaks correlated ties consistently", "[model]") {
    Circuit c;
    c.variables = {{"A", {"0", "1"}}, {"B", {"0", "1"}}};
    NodeId lam[2][2];
    for (uint32_t v = 0; v < 2; ++v)
        for (uint32_t s = 0; s < 2; ++s) {
            InputInfo in;
            in.kind = InputKind::Indicator;
            in.variable = v;
            in.state = s;
            lam[v][s] = c.addInput(c.addInputInfo(in));
        }
    InputInfo half;
    half.kind = InputKind::Parameter;
    half.value = 0.5;
    const NodeId p = c.addInput(c.addInputInfo(half));
    const NodeId t1 = c.addTimes(p, c.addTimes(lam[0][0], lam[1][1]));
    const NodeId t2 = c.addTimes(p, c.addTimes(lam[0][1], lam[1][0]));
    c.addOutput(c.addPlus(t1, t2));
    REQUIRE(verify(c).ok());
    for (DeviceKind d : {DeviceKind::Cpu, DeviceKind::Reference}) {
        DeviceOptions o;
        o.device = d;
        Model m = Model::fromCircuit(c, o);
        auto mpe = runTask(m, Task::Mpe, noEvidence(c.variables));
        REQUIRE(mpe.ok());
        CHECK(mpe->value == Approx(0.5));
        REQUIRE(mpe->assignment.size() == 2);
        CHECK(mpe->assignment[0] != mpe->assignment[1]);
        CHECK(jointOf(c, mpe->assignment) == Approx(0.5));
    }
    Model m = jit(c);
    const Evidence none = noEvidence(c.variables);
    const double best = std::log(0.5);
    auto decoded = decodeMpe(m, Numeric::Log, std::span(&none, 1), {}, std::span(&best, 1));
    REQUIRE(decoded.ok());
    CHECK(decoded->assignments[0][0] != decoded->assignments[0][1]);
    CHECK(decoded->passes == 2); // one tie round fixes A, which settles B
}

// 40 factors of 1e-10: P = 1e-400 underflows float64; the JIT must switch to log space.
TEST_CASE("the JIT falls back to log space where float64 underflows", "[model]") {
    Circuit c;
    c.variables = {{"A", {"a"}}};
    InputInfo ind;
    ind.kind = InputKind::Indicator;
    ind.variable = 0;
    ind.state = 0;
    NodeId acc = c.addInput(c.addInputInfo(ind));
    for (int k = 0; k < 40; ++k) {
        InputInfo p;
        p.kind = InputKind::Parameter;
        p.value = 1e-10;
        acc = c.addTimes(acc, c.addInput(c.addInputInfo(p)));
    }
    c.addOutput(acc);
    Model m = jit(c);
    auto r = runTask(m, Task::Pr, noEvidence(c.variables));
    REQUIRE(r.ok());
    CHECK(r->numeric == Numeric::Log);
    CHECK(r->log10 == Approx(-400.0).epsilon(1e-12));
    CHECK_THAT(r->device.label(), Catch::Contains("log"));
    TaskOptions lin;
    lin.numeric = NumericChoice::Float64;
    // Forced to float64, the answer (10^-400) underflows: said so, not answered as 0.
    auto f = runTask(m, Task::Pr, noEvidence(c.variables), lin);
    REQUIRE_FALSE(f.ok());
    CHECK_THAT(f.error().message, Catch::Contains("float64 underflowed"));
}

TEST_CASE("the CPU runs the data-driven loop but for small circuits over large batches",
          "[model]") {
    CHECK(cpuRunsLoop(82, 1));             // asia, one query: the loop builds no code
    CHECK(cpuRunsLoop(82, 9'999));
    CHECK_FALSE(cpuRunsLoop(82, 10'000));  // ... the JIT's build pays over many cases
    CHECK_FALSE(cpuRunsLoop(9'999, 50'000));
    CHECK(cpuRunsLoop(12'579, 50'000)); // alarm: the loop's batches are as fast
    // The model settles its CPU code at the first call, from that call's batch.
    DeviceOptions o;
    o.device = DeviceKind::Cpu;
    Model one = Model::fromCircuit(example(), o);
    auto r = runTask(one, Task::Pr, noEvidence(one.interface().variables));
    REQUIRE(r.ok());
    CHECK_THAT(r->device.label(), Catch::StartsWith("cpu (data-driven loop"));
    Model many = Model::fromCircuit(example(), o);
    REQUIRE(many.prepare(Semiring::SumProduct, Numeric::Float64, 20'000).ok());
    CHECK_THAT(many.describe(Numeric::Float64), Catch::StartsWith("cpu (LLVM JIT"));
}

TEST_CASE("DeviceKind::Auto takes CUDA only where a GPU is usable, and says why not", "[model]") {
    Model m = Model::fromCircuit(example());
    if (Status usable = gpuUsable(); usable) {
        CHECK(m.device() == DeviceKind::Cuda);
        CHECK(m.fallbackNote().empty());
    } else {
        CHECK(m.device() == DeviceKind::Cpu);
        CHECK(m.fallbackNote() == "cuda unavailable: " + usable.error().message);
        auto r = runTask(m, Task::Pr, noEvidence(m.interface().variables));
        REQUIRE(r.ok());
        // Short: the reason is the note. One case: the CPU runs the loop (cpuRunsLoop).
        CHECK(r->device.label() == "cpu (data-driven loop, float64; no usable GPU)");
    }
    CHECK(parseDeviceKind("reference") == DeviceKind::Reference);
    CHECK_FALSE(parseDeviceKind("gpu").has_value());
}

TEST_CASE("evaluateAsync gives what evaluate gives", "[model]") {
    const Circuit c = example();
    Model m = jit(c);
    auto x = inputVector(interfaceOf(c), noEvidence(c.variables));
    REQUIRE(x.ok());
    std::vector<double> two = *x;
    two.insert(two.end(), x->begin(), x->end());
    auto fut = m.evaluateAsync(Semiring::SumProduct, Numeric::Float64, two, 2);
    auto now = m.evaluate(Semiring::SumProduct, Numeric::Float64, *x, 1);
    auto later = fut.get();
    REQUIRE(now.ok());
    REQUIRE(later.ok());
    REQUIRE(later->size() == 2);
    CHECK((*later)[0] == Approx(1.0)); // no evidence: the distribution sums to 1
    CHECK((*later)[1] == (*now)[0]);
}

TEST_CASE("model.so metadata errors name the line", "[model]") {
    auto bad = parseModelMetadata("zbdd-model 1\nsemiring sum-product\nnumeric float64\n"
                                  "variables 1\nvariable A 2 x y\ninputs 1\nindicator 0 5 %\n",
                                  "m.so(metadata)");
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.error().str(), Catch::StartsWith("m.so(metadata):7:"));
    auto good = parseModelMetadata("zbdd-model 1\nsemiring max-product\nnumeric log\nvariables 1\n"
                                   "variable A%20b 2 x %\ninputs 2\nindicator 0 1 %\nparameter 0.5 t\n"
                                   "outputs 1\noutput f\n",
                                   "m");
    REQUIRE(good.ok());
    CHECK(good->interface.semiring == Semiring::MaxProduct);
    CHECK(good->numeric == Numeric::Log);
    CHECK(good->interface.variables[0].name == "A b");
    CHECK(good->interface.variables[0].states[1].empty());
    CHECK(good->interface.inputs[1].value == 0.5);
    CHECK(good->interface.numOutputs() == 1);
    CHECK_FALSE(Model::fromSharedObject("/nonexistent/model.so").ok());
}
