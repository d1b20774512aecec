#include "compiler/frontends/zdd/zdd_format.h"
#include "compiler/frontends/zdd/zdd_lower.h"
#include "runtime/tasks.h"

#include "tests/catch.hpp"

#include <cmath>

using namespace zbddc;

namespace {
// The bundled example: Rain -> WetGrass with P(R=yes)=0.2, P(W=yes|R=yes)=0.9, P(W=yes|R=no)=0.1.
Circuit example() {
    auto m = readZddFile(ZBDDC_SOURCE_DIR "/examples/wetgrass.zdd");
    REQUIRE(m.ok());
    return lowerZdd(*m);
}

// The joint distribution written out by hand, as the oracle.
double joint(int rain, int wet) { // state 0 = yes
    const double pr = rain == 0 ? 0.2 : 0.8;
    const double pwYes = rain == 0 ? 0.9 : 0.1;
    return pr * (wet == 0 ? pwYes : 1 - pwYes);
}
} // namespace

TEST_CASE("PR of the example matches the hand-computed joint", "[tasks]") {
    const Circuit c = example();
    for (int w = -1; w < 2; ++w) {
        Evidence e = noEvidence(c.variables);
        if (w >= 0)
            e.states[1] = w;
        double expected = 0;
        for (int r = 0; r < 2; ++r)
            for (int ww = 0; ww < 2; ++ww)
                if (w < 0 || ww == w)
                    expected += joint(r, ww);
        auto result = runTask(c, Task::Pr, e);
        REQUIRE(result.ok());
        CHECK(result->value == Approx(expected));
        CHECK(result->log10 == Approx(std::log10(expected)));
    }
}

TEST_CASE("MAR of the example equals Bayes' rule by hand", "[tasks]") {
    const Circuit c = example();
    Evidence e = noEvidence(c.variables);
    e.states[1] = 0; // WetGrass = yes
    auto r = runTask(c, Task::Mar, e);
    REQUIRE(r.ok());
    const double pw = joint(0, 0) + joint(1, 0);
    CHECK(r->marginals[0][0] == Approx(joint(0, 0) / pw));
    CHECK(r->marginals[0][1] == Approx(joint(1, 0) / pw));
    CHECK((r->marginals[1][0] == 1.0 && r->marginals[1][1] == 0.0));
    // Without evidence: the priors.
    auto prior = runTask(c, Task::Mar, noEvidence(c.variables));
    CHECK(prior->marginals[0][0] == Approx(0.2));
    CHECK(prior->marginals[1][0] == Approx(joint(0, 0) + joint(1, 0)));
}

TEST_CASE("MPE of the example is the most probable joint state", "[tasks]") {
    const Circuit c = example();
    auto r = runTask(c, Task::Mpe, noEvidence(c.variables));
    REQUIRE(r.ok());
    CHECK(r->value == Approx(joint(1, 1))); // 0.8 · 0.9
    CHECK(r->assignment == std::vector<uint32_t>{1, 1});
    Evidence e = noEvidence(c.variables);
    e.states[1] = 0;
    auto given = runTask(c, Task::Mpe, e);
    CHECK(given->value == Approx(std::max(joint(0, 0), joint(1, 0)))); // 0.18 vs 0.08
    CHECK(given->assignment == std::vector<uint32_t>{0, 0});
}

TEST_CASE("PR that underflows float64 is answered in log space", "[tasks]") {
    // 400 independent binary variables with P(state 0) = 1e-3, all observed at state 0:
    // P(e) = 1e-1200, far below float64's range.
    Circuit c;
    NodeId acc = c.addOne();
    Evidence e;
    for (uint32_t v = 0; v < 400; ++v) {
        c.variables.push_back({"V" + std::to_string(v), {"s0", "s1"}});
        const uint32_t l0 = c.addInputInfo({InputKind::Indicator, v, 0, 0.0, ""});
        const uint32_t l1 = c.addInputInfo({InputKind::Indicator, v, 1, 0.0, ""});
        const uint32_t t0 = c.addInputInfo({InputKind::Parameter, kNone, kNone, 1e-3, ""});
        const uint32_t t1 = c.addInputInfo({InputKind::Parameter, kNone, kNone, 1 - 1e-3, ""});
        const NodeId term0 = c.addTimes(c.addInput(l0), c.addInput(t0));
        const NodeId term1 = c.addTimes(c.addInput(l1), c.addInput(t1));
        acc = c.addTimes(acc, c.addPlus(term0, term1));
        e.states.push_back(0);
    }
    c.addOutput(acc);
    REQUIRE(verify(c).ok());
    // Float64 asked for: an underflow is said as one, not answered as probability 0.
    auto plain = runTask(c, Task::Pr, e, {NumericChoice::Float64, {}});
    REQUIRE_FALSE(plain.ok());
    CHECK(plain.error().message ==
          "float64 underflowed: log10 of the answer is -1200; use --numeric log, or auto (the default)");
    Model cpu = Model::fromCircuit(c, {DeviceKind::Cpu});
    const auto batch = runTasks(cpu, Task::Mar, std::vector<Evidence>{e, noEvidence(c.variables)},
                                {NumericChoice::Float64, {}});
    REQUIRE(batch.size() == 2);
    CHECK_FALSE(batch[0].ok());
    CHECK(batch[0].error().message.find("float64 underflowed") == 0);
    REQUIRE(batch[1].ok());
    CHECK(batch[1]->marginals[7][0] == Approx(1e-3));
    auto safe = runTask(c, Task::Pr, e);
    REQUIRE(safe.ok());
    CHECK(safe->numeric == Numeric::Log);
    CHECK(safe->log10 == Approx(-1200.0));
    auto mar = runTask(c, Task::Mar, noEvidence(c.variables), {NumericChoice::Log, {}});
    CHECK(mar->marginals[7][0] == Approx(1e-3));
}

TEST_CASE("impossible evidence is an error for MAR and MPE, probability 0 for PR", "[tasks]") {
    Circuit c = example();
    c.inputs[2].value = 0.0; // P(Rain=yes) = 0
    c.inputs[3].value = 0.0; // and P(Rain=no) = 0: nothing is possible
    auto pr = runTask(c, Task::Pr, noEvidence(c.variables));
    REQUIRE(pr.ok());
    CHECK(pr->value == 0.0);
    CHECK_FALSE(runTask(c, Task::Mar, noEvidence(c.variables)).ok());
    Circuit maxProduct = c;
    maxProduct.semiring = Semiring::MaxProduct;
    const auto mpe = runTask(maxProduct, Task::Mpe, noEvidence(c.variables));
    REQUIRE_FALSE(mpe.ok());
    CHECK(mpe.error().message == "MPE is undefined: the evidence has probability 0");
}

TEST_CASE("a batch of cases answers as each case alone, underflow and P(e) = 0 included",
          "[tasks]") {
    // 400 independent binary variables with P(s0) = 1e-3, except V0 with P(s0) = 0.
    Circuit c;
    NodeId acc = c.addOne();
    for (uint32_t v = 0; v < 400; ++v) {
        c.variables.push_back({"V" + std::to_string(v), {"s0", "s1"}});
        const double p0 = v == 0 ? 0.0 : 1e-3;
        const uint32_t l0 = c.addInputInfo({InputKind::Indicator, v, 0, 0.0, ""});
        const uint32_t l1 = c.addInputInfo({InputKind::Indicator, v, 1, 0.0, ""});
        const uint32_t t0 = c.addInputInfo({InputKind::Parameter, kNone, kNone, p0, ""});
        const uint32_t t1 = c.addInputInfo({InputKind::Parameter, kNone, kNone, 1 - p0, ""});
        acc = c.addTimes(acc, c.addPlus(c.addTimes(c.addInput(l0), c.addInput(t0)),
                                        c.addTimes(c.addInput(l1), c.addInput(t1))));
    }
    c.addOutput(acc);
    REQUIRE(verify(c).ok());
    std::vector<Evidence> cases(5, noEvidence(c.variables));
    for (uint32_t v = 1; v < 400; ++v)
        cases[1].states[v] = 0; // P(e) = 1e-1197: float64 loses it, log space keeps it
    cases[2].states[0] = 0;     // impossible
    cases[3].states[7] = 0;     // 1e-3
    cases[4].states[0] = 1;
    cases[4].states[9] = 1;
    for (const DeviceKind device : {DeviceKind::Cpu, DeviceKind::Reference})
        for (const Task task : {Task::Pr, Task::Mar, Task::Mpe}) {
            INFO(deviceKindName(device) << " " << taskName(task));
            DeviceOptions o;
            o.device = device;
            Model m = Model::fromCircuit(c, o);
            const auto batch = runTasks(m, task, cases);
            REQUIRE(batch.size() == cases.size());
            for (size_t i = 0; i < cases.size(); ++i) {
                INFO("case " << i);
                const auto alone = runTask(c, task, cases[i]); // the reference, one case
                REQUIRE(batch[i].ok() == alone.ok());
                if (!alone) {
                    CHECK(batch[i].error().message == alone.error().message);
                    continue;
                }
                CHECK(batch[i]->numeric == alone->numeric);
                CHECK(batch[i]->log10 == Approx(alone->log10).epsilon(1e-12));
                REQUIRE(batch[i]->marginals.size() == alone->marginals.size());
                for (size_t v = 0; v < alone->marginals.size(); ++v)
                    for (size_t s = 0; s < 2; ++s)
                        CHECK(batch[i]->marginals[v][s] ==
                              Approx(alone->marginals[v][s]).margin(1e-12));
                CHECK(batch[i]->assignment == alone->assignment); // no ties: one MPE
            }
            CHECK(batch[1]->numeric == Numeric::Log);
            CHECK(batch[1]->log10 == Approx(-1197.0)); // MPE too: V0 is 1 with probability 1
            CHECK(batch[2].ok() == (task == Task::Pr));
        }
}

TEST_CASE("cases with their own free inputs answer in one batch as each case alone", "[tasks]") {
    // The example with its parameters free: each case brings its own, as a circuit's weightings
    // do (`zbddc run --weight-cases`), under varied evidence.
    Circuit c = example();
    std::vector<double> params;
    for (InputInfo &in : c.inputs)
        if (in.kind == InputKind::Parameter) {
            params.push_back(in.value);
            in = {InputKind::Free, kNone, kNone, 0.0, ""};
        }
    REQUIRE(!params.empty());
    std::vector<Evidence> cases(6, noEvidence(c.variables));
    cases[1].states[0] = 0;
    cases[2].states[1] = 1;
    cases[4].states[0] = 1;
    cases[4].states[1] = 0;
    std::vector<std::vector<double>> own;
    for (size_t k = 0; k < cases.size(); ++k) {
        own.push_back(params);
        for (size_t j = 0; j < params.size(); ++j)
            own.back()[j] = params[j] * (0.5 + 0.1 * double((k + j) % 7)); // differ per case
    }
    for (const DeviceKind device : {DeviceKind::Cpu, DeviceKind::Reference})
        for (const Task task : {Task::Pr, Task::Mar, Task::Mpe, Task::Eval}) {
            INFO(deviceKindName(device) << " " << taskName(task));
            Model m = Model::fromCircuit(c, {.device = device});
            TaskOptions batchOptions;
            batchOptions.caseFreeInputs = own;
            const auto batch = runTasks(m, task, cases, batchOptions);
            REQUIRE(batch.size() == cases.size());
            for (size_t k = 0; k < cases.size(); ++k) {
                INFO("case " << k);
                TaskOptions alone;
                alone.freeInputs = own[k];
                const auto one = runTask(c, task, cases[k], alone); // the reference, one case
                REQUIRE(one.ok());
                REQUIRE(batch[k].ok());
                CHECK(batch[k]->value == Approx(one->value).epsilon(1e-13));
                REQUIRE(batch[k]->marginals.size() == one->marginals.size());
                for (size_t v = 0; v < one->marginals.size(); ++v)
                    for (size_t s = 0; s < one->marginals[v].size(); ++s)
                        CHECK(batch[k]->marginals[v][s] ==
                              Approx(one->marginals[v][s]).margin(1e-13));
                CHECK(batch[k]->assignment == one->assignment);
            }
        }
    // One vector too few or too short: an error, not a misread batch.
    TaskOptions bad;
    bad.caseFreeInputs.assign(own.begin(), own.end() - 1);
    Model m = Model::fromCircuit(c, {.device = DeviceKind::Cpu});
    for (const auto &r : runTasks(m, Task::Pr, cases, bad))
        CHECK(!r.ok());
    bad.caseFreeInputs = own;
    bad.caseFreeInputs[2].pop_back();
    const auto some = runTasks(m, Task::Pr, cases, bad);
    CHECK(some[1].ok());
    CHECK(!some[2].ok());
}
