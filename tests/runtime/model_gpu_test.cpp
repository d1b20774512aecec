// `zbddc run --device cuda` and Model(DeviceKind::Cuda) on a real GPU against the reference
// evaluator: PR, MAR and MPE (the device's own traceback: for one case on the host from its
// values, for a batch on the device, a walk per case) on the example and asia/alarm, batches
// included, also split
// evenly over logical devices; batched MAR and MPE on random networks, asia, alarm and hailfinder
// from 1 case to more than one launch holds, MPE also against brute force or variable
// elimination, and a network tied on purpose traced in one pass; passes over batches of shared and
// varying inputs (the shared ones kept on the device) against the reference. Exits 77 (skipped)
// where no GPU is usable, saying why. MAR with host phases (the narrow end levels on the JIT)
// likewise.
#include "runtime/engine.h"
#include "runtime/model.h"
#include "runtime/tasks.h"
#include "pipeline/load_model.h"

#include "tests/catch.hpp"
#include "tests/support/mpe_batch_checks.h"
#include "tests/support/random_circuits.h"
#include "tests/support/run_zbddc.h"
#include "tests/support/runtime_gpu.h"
#include "tests/support/varying_pass_checks.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>

using namespace zbddc;

namespace {

const bool gpuPresent = testing::runtimeGpuPresent();

void checkOnGpu(const Circuit &c, const Evidence &e) {
    DeviceOptions o;
    o.device = DeviceKind::Cuda;
    Model m = Model::fromCircuit(c, o);
    REQUIRE(m.device() == DeviceKind::Cuda);
    for (Task t : {Task::Pr, Task::Mar, Task::Mpe}) {
        INFO(taskName(t));
        auto want = runTask(c, t, e);
        REQUIRE(want.ok());
        if (t == Task::Mar && want->value == 0)
            continue;
        auto got = runTask(m, t, e);
        if (!got)
            FAIL(got.error().str());
        CHECK_THAT(got->device.label(), Catch::StartsWith("cuda: "));
        CHECK(got->log10 == Approx(want->log10).epsilon(1e-10));
        for (size_t v = 0; v < want->marginals.size(); ++v)
            for (size_t s = 0; s < want->marginals[v].size(); ++s)
                CHECK(got->marginals[v][s] == Approx(want->marginals[v][s]).margin(1e-10));
        if (t == Task::Mpe && want->value > 0) {
            Evidence full{got->assignment, {}};
            for (uint32_t &s : full.states)
                if (s == kNone)
                    s = 0; // undetermined: any state reaches the optimum
            auto joint = runTask(c, Task::Mpe, full);
            REQUIRE(joint.ok());
            CHECK(joint->value == Approx(want->value).epsilon(1e-10));
        }
    }
}

Model onCuda(const Circuit &c, std::optional<uint32_t> hostLevelOps = std::nullopt) {
    DeviceOptions o;
    o.device = DeviceKind::Cuda;
    o.hostLevelOps = hostLevelOps;
    Model m = Model::fromCircuit(c, o);
    REQUIRE(m.device() == DeviceKind::Cuda);
    return m;
}

// `count` mixed cases (impossible ones included) as one batch on the GPU: MPE against the oracles
// and, with MAR, against the reference evaluator case by case (the model's own host phases by
// default: one case runs them). With `hostLevelOps` set, every MAR batch runs the circuit's
// narrow end levels on the host's JIT and says so.
void checkBatchOnGpu(const testing::CompiledNetwork &cn, size_t count, std::mt19937 &rng,
                     std::optional<uint32_t> hostLevelOps = std::nullopt) {
    INFO(count << " cases, host level ops " << hostLevelOps.value_or(kOneCaseHostLevelOps));
    const std::vector<Evidence> cases = testing::mixedCases(cn.net, count, rng);
    Model m = onCuda(cn.circuit, hostLevelOps);
    const auto mpe = runTasks(m, Task::Mpe, cases);
    testing::checkMpeAnswers(cn.net, cases, testing::mpeOracles(cn.net, cases), mpe);
    const auto mar = runTasks(m, Task::Mar, cases);
    REQUIRE(mar.size() == count);
    for (size_t i = 0; i < count; ++i) {
        INFO("case " << i);
        const auto wantMpe = runTask(cn.circuit, Task::Mpe, cases[i]);
        REQUIRE(mpe[i].ok() == wantMpe.ok());
        if (wantMpe) {
            CHECK(mpe[i]->log10 == Approx(wantMpe->log10).epsilon(1e-10));
            CHECK_THAT(mpe[i]->device.label(), Catch::StartsWith("cuda: "));
            CHECK_THAT(mpe[i]->device.label(),
                       Catch::Contains(count > 1 ? "MPE traced back over" : "MPE traced back"));
        }
        const auto want = runTask(cn.circuit, Task::Mar, cases[i]);
        REQUIRE(mar[i].ok() == want.ok());
        if (!want) {
            CHECK(mar[i].error().message == want.error().message);
            continue;
        }
        CHECK_THAT(mar[i]->device.label(), Catch::StartsWith("cuda: "));
        if (hostLevelOps.value_or(0) > 0)
            CHECK_THAT(mar[i]->device.label(), Catch::Contains("levels on the host's JIT"));
        CHECK(mar[i]->log10 == Approx(want->log10).epsilon(1e-10));
        for (size_t v = 0; v < want->marginals.size(); ++v)
            for (size_t s = 0; s < want->marginals[v].size(); ++s)
                CHECK(mar[i]->marginals[v][s] == Approx(want->marginals[v][s]).margin(1e-10));
    }
}

} // namespace

TEST_CASE("Model on CUDA answers like the reference evaluator", "[gpu]") {
    REQUIRE(gpuPresent);
    auto c = loadCircuit(ZBDDC_SOURCE_DIR "/examples/wetgrass.zdd");
    REQUIRE(c.ok());
    checkOnGpu(*c, noEvidence(c->variables));
    for (const char *name : {"asia", "alarm"}) {
        const std::string path = std::string(ZBDDC_BENCHMARKS_DIR) + "/bn/" + name + ".bif";
        REQUIRE(std::filesystem::exists(path));
        INFO(name);
        auto net = loadCircuit(path);
        REQUIRE(net.ok());
        std::mt19937 rng(3);
        checkOnGpu(*net, noEvidence(net->variables));
        Evidence e = noEvidence(net->variables);
        for (size_t v = 0; v < e.states.size(); v += 3)
            e.states[v] = rng() % net->variables[v].states.size();
        checkOnGpu(*net, e);
    }
}

TEST_CASE("zbddc run --device cuda runs on the GPU and says so", "[gpu]") {
    using namespace zbddc::testing;
    const std::string ex = std::string(ZBDDC_SOURCE_DIR) + "/examples/wetgrass.zdd";
    auto r = runZbddc("run " + ex + " --task mar --evidence WetGrass=yes --device cuda --json");
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(r.out, Catch::Contains("\"device\":\"cuda: "));
    CHECK_THAT(r.out, Catch::Contains("\"Rain\":[0.69230769230769"));
}

TEST_CASE("a batch of cases on CUDA runs many per launch and answers as the reference", "[gpu]") {
    REQUIRE(gpuPresent);
    for (const char *name : {"asia", "alarm"}) {
        const std::string path = std::string(ZBDDC_BENCHMARKS_DIR) + "/bn/" + name + ".bif";
        REQUIRE(std::filesystem::exists(path));
        INFO(name);
        auto net = loadCircuit(path);
        REQUIRE(net.ok());
        CHECK(cudaLanesFor(*net, 300) == 512); // a power of two holding the batch
        std::mt19937 rng(5);
        std::vector<Evidence> cases(300, noEvidence(net->variables));
        for (Evidence &e : cases) // a fifth observed, impossible combinations included
            for (size_t v = 0; v < e.states.size(); ++v)
                if (rng() % 5 == 0)
                    e.states[v] = rng() % net->variables[v].states.size();
        DeviceOptions o;
        o.device = DeviceKind::Cuda;
        Model m = Model::fromCircuit(*net, o);
        for (Task t : {Task::Pr, Task::Mar}) {
            INFO(taskName(t));
            const auto batch = runTasks(m, t, cases);
            REQUIRE(batch.size() == cases.size());
            for (size_t i = 0; i < cases.size(); ++i) {
                const auto want = runTask(*net, t, cases[i]);
                REQUIRE(batch[i].ok() == want.ok());
                if (!want)
                    continue;
                CHECK_THAT(batch[i]->device.label(), Catch::StartsWith("cuda: "));
                CHECK(batch[i]->log10 == Approx(want->log10).epsilon(1e-10));
                for (size_t v = 0; v < want->marginals.size(); ++v)
                    for (size_t s = 0; s < want->marginals[v].size(); ++s)
                        CHECK(batch[i]->marginals[v][s] ==
                              Approx(want->marginals[v][s]).margin(1e-10));
            }
        }
    }
}

TEST_CASE("a batch split evenly over logical devices (and the GPUs there are) answers as the "
          "reference",
          "[gpu][multi-device]") {
    REQUIRE(gpuPresent);
    const std::string path = std::string(ZBDDC_BENCHMARKS_DIR) + "/bn/alarm.bif";
    REQUIRE(std::filesystem::exists(path));
    auto net = loadCircuit(path);
    REQUIRE(net.ok());
    std::mt19937 rng(9);
    std::vector<Evidence> cases(301, noEvidence(net->variables));
    for (Evidence &e : cases)
        for (size_t v = 0; v < e.states.size(); ++v)
            if (rng() % 5 == 0)
                e.states[v] = rng() % net->variables[v].states.size();
    DeviceOptions o;
    o.device = DeviceKind::Cuda;
    const Model base = Model::fromCircuit(*net, o);
    std::vector<std::vector<int>> lists = {{0, 0}, {0, 0, 0}};
    if (!cudaDeviceName(1).empty()) // a second GPU
        lists.push_back({0, 1});
    for (const std::vector<int> &gpus : lists) {
        INFO(gpus.size() << " devices");
        std::vector<Model> models;
        for (int g : gpus) {
            auto m = base.onGpu(g);
            REQUIRE(m.ok());
            models.push_back(std::move(*m));
        }
        for (Task t : {Task::Pr, Task::Mar, Task::Mpe}) {
            INFO(taskName(t));
            const auto spread = runTasksOnDevices(models, t, cases);
            REQUIRE(spread.size() == cases.size());
            for (size_t i = 0; i < cases.size(); i += t == Task::Mpe ? 10 : 1) {
                const auto want = runTask(*net, t, cases[i]);
                REQUIRE(spread[i].ok() == want.ok());
                if (!want)
                    continue;
                CHECK_THAT(spread[i]->device.label(), Catch::StartsWith("cuda: "));
                CHECK_THAT(spread[i]->device.label(), Catch::EndsWith(" devices)"));
                CHECK(spread[i]->log10 == Approx(want->log10).epsilon(1e-10));
                for (size_t v = 0; v < want->marginals.size(); ++v)
                    for (size_t s = 0; s < want->marginals[v].size(); ++s)
                        CHECK(spread[i]->marginals[v][s] ==
                              Approx(want->marginals[v][s]).margin(1e-10));
            }
        }
    }
    DeviceOptions cpu;
    cpu.device = DeviceKind::Cpu;
    CHECK_FALSE(Model::fromCircuit(*net, cpu).onGpu(0).ok()); // a CPU model stays where it is
}

TEST_CASE("batched MAR and MPE on CUDA answer as the reference and the oracles, up to more cases "
          "than one launch holds",
          "[gpu][mpe]") {
    REQUIRE(gpuPresent);
    std::mt19937 rng(21);
    for (int k = 0; k < 8; ++k) { // the MLF circuits of random networks
        INFO("random network " << k);
        const auto cn = testing::compileNetwork(testing::randomBayesNet(rng, 3 + k % 6));
        checkBatchOnGpu(cn, k % 2 ? 1 : 7, rng);
    }
    checkBatchOnGpu(testing::compileNetwork(testing::randomBayesNet(rng, 7)), 1024, rng);
    for (const char *name : {"asia", "alarm", "hailfinder"}) {
        INFO(name);
        const auto cn = testing::benchmarkNetwork(name);
        if (!cn)
            continue;
        const size_t overOneLaunch = 3 * kMaxCudaLanes + 5;
        REQUIRE(cudaLanesFor(cn->circuit, overOneLaunch) < overOneLaunch);
        for (size_t count : {size_t{1}, size_t{7}, size_t{1024}, overOneLaunch})
            checkBatchOnGpu(*cn, count, rng);
    }
}

TEST_CASE("MAR with the circuit's narrow end levels on the host's JIT answers as the reference "
          "on CUDA",
          "[gpu][host-phases]") {
    REQUIRE(gpuPresent);
    std::mt19937 rng(22);
    for (const char *name : {"alarm", "hailfinder"}) {
        INFO(name);
        const auto cn = testing::benchmarkNetwork(name);
        if (!cn)
            continue;
        const size_t overOneLaunch = 3 * kMaxCudaLanes + 5;
        for (size_t count : {size_t{1}, size_t{7}, size_t{1024}, overOneLaunch})
            checkBatchOnGpu(*cn, count, rng, 32);
    }
}

TEST_CASE("tied cases on CUDA are traced back in one pass: each walk takes the first of a tie",
          "[gpu][mpe]") {
    REQUIRE(gpuPresent);
    const auto cn = testing::compileNetwork(testing::tiedCoins());
    const std::vector<Evidence> cases = testing::everyCoinCase();
    Model m = onCuda(cn.circuit);
    const auto batch = runTasks(m, Task::Mpe, cases);
    testing::checkMpeAnswers(cn.net, cases, testing::mpeOracles(cn.net, cases), batch);
    size_t possible = 0;
    for (const Evidence &e : cases)
        possible += testing::possibleCoins(e);
    REQUIRE(batch[242].ok()); // nothing observed: four tie rounds when decoded from adjoints
    const std::string note = "MPE traced back over " + std::to_string(possible) + " cases";
    CHECK_THAT(batch[242]->device.label(), Catch::Contains(note));
}

TEST_CASE("passes over shared and varying inputs on CUDA: the shared ones kept on the device, "
          "uploaded again when they or the device's input rows change",
          "[gpu][varying]") {
    std::mt19937 rng(43);
    struct Arithmetic {
        Semiring semiring;
        Numeric numeric;
        double tol;
    };
    for (const Arithmetic a : {Arithmetic{Semiring::SumProduct, Numeric::Float64, 1e-10},
                               {Semiring::SumProduct, Numeric::Log, 1e-10},
                               {Semiring::MaxProduct, Numeric::Float64, 1e-10},
                               {Semiring::SumProduct, Numeric::Float32, 1e-4}}) {
        INFO(semiringName(a.semiring) << " " << numericName(a.numeric));
        for (uint32_t outputs : {1u, 2u}) { // two: the outputs from a forward pass of their own
            const Circuit c = testing::randomCircuit(
                {.inputs = 40, .ops = 400, .outputs = outputs, .semiring = a.semiring}, rng);
            Model m = onCuda(c);
            // One lane, a few, a full launch, and more than one launch holds (512 lanes).
            for (size_t count : {1, 7, 1024, 1500}) {
                INFO(count << " vectors, " << outputs << " outputs");
                InputBatch b = testing::randomVaryingBatch(c.numInputs(), count, rng);
                testing::checkVaryingPass(m, c, a.semiring, a.numeric, b, outputs - 1, a.tol);
                for (double &x : b.shared) // other shared values: uploaded again
                    x *= 0.75;
                testing::checkVaryingPass(m, c, a.semiring, a.numeric, b, 0, a.tol);
                // Whole vectors in between write the device's input rows.
                const std::vector<double> other = testing::randomInputs(rng, c.numInputs() * count);
                REQUIRE(m.evaluate(a.semiring, a.numeric, other, count).ok());
                testing::checkVaryingPass(m, c, a.semiring, a.numeric, b, 0, a.tol);
            }
        }
    }
}
