// Loopy BP lowered into the TensorProgram IR (compiler/loopy/lower_loopy.h, runtime/loopy/
// loopy_tensor.h) against oracles it shares no message code with: the message ops by hand and
// through the reference interpreter; whole runs against the dedicated route (loopy_bp.h, itself
// checked against variable elimination) — on polytrees and chains within 1e-9 and equal to
// variable elimination, on loopy grids the same fixed point in the same sweeps within one — for
// sum- and max-product, damping on and off, batches with evidence.
#include "backends/tensor/cpu/tensor_cpu.h"
#include "compiler/loopy/lower_loopy.h"
#include "compiler/loopy/synthetic_models.h"
#include "ir/tensor_interpret.h"
#include "runtime/loopy/loopy_tasks.h"
#include "runtime/loopy/loopy_tensor.h"

#include "tests/catch.hpp"
#include "tests/support/bn_elimination.h"
#include "tests/support/loopy_testing.h"

#include <cmath>
#include <random>

using namespace zbddc;
using namespace zbddc::testing;

namespace {

// fresh, old and w over one variable of two states; out = DampMessage or MessageResidual.
TensorProgram messageOpProgram(Semiring s, TensorOpKind kind, std::vector<double> fresh,
                               std::vector<double> old, double w) {
    TensorProgram p;
    p.semiring = s;
    p.domainSizes = {2};
    auto input = [&](std::vector<uint32_t> scope, std::vector<double> values) {
        Table t;
        t.scope = scope;
        for (size_t i = 0; i < scope.size(); ++i)
            t.domains.push_back(2);
        t.input = true;
        t.values = std::move(values);
        p.tables.push_back(std::move(t));
        return uint32_t(p.tables.size() - 1);
    };
    const uint32_t f = input({0}, fresh), o = input({0}, old), wt = input({}, {w});
    Table out;
    if (kind == TensorOpKind::DampMessage) {
        out.scope = {0};
        out.domains = {2};
        p.tables.push_back(out);
        p.ops.push_back({kind, {f, o, wt}, 3, {0}, {}});
    } else {
        p.tables.push_back(out);
        p.ops.push_back({kind, {f, o}, 3, {}, {}});
    }
    computeLevels(p);
    return p;
}

// Every computed table of the lowered sweep, by the interpreter and by the CPU executor.
void checkSweepAgainstInterpreter(const LoopyProgram &lp) {
    auto reference = interpretTensorProgram(lp.program);
    REQUIRE(reference.ok());
    auto cpu = runTensorProgramCpu(lp.program, {2});
    REQUIRE(cpu.ok());
    for (size_t t = 0; t < reference->size(); ++t)
        for (size_t r = 0; r < (*reference)[t].size(); ++r) {
            const double a = (*reference)[t][r], b = (*cpu)[t][r];
            INFO("table " << t << " row " << r);
            CHECK((a == b || std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(a))));
        }
}

std::vector<LoopyCase> tensorRun(const FactorGraph &g, const std::vector<Evidence> &cases,
                                 const LoopyOptions &o, const char *executor = "cpu") {
    auto run = runLoopyTensor(g, cases, o, executor);
    if (!run)
        FAIL(run.error().str());
    return std::move(run->cases);
}

// Beliefs, ln Z, iterations and convergence of two runs of the same cases.
void checkSameRuns(const FactorGraph &g, const std::vector<LoopyCase> &tensor,
                   const std::vector<LoopyCase> &dedicated, double within, uint32_t sweeps) {
    REQUIRE(tensor.size() == dedicated.size());
    for (size_t c = 0; c < tensor.size(); ++c) {
        INFO("case " << c << ": iterations " << tensor[c].iterations << " vs "
                     << dedicated[c].iterations << ", residual " << tensor[c].maxResidual
                     << " vs " << dedicated[c].maxResidual);
        CHECK(tensor[c].converged == dedicated[c].converged);
        CHECK(tensor[c].vanished == dedicated[c].vanished);
        CHECK(std::abs(int64_t(tensor[c].iterations) - int64_t(dedicated[c].iterations)) <=
              sweeps);
        REQUIRE(tensor[c].beliefs.size() == g.stateOffset.back());
        for (size_t s = 0; s < tensor[c].beliefs.size(); ++s)
            CHECK(std::abs(tensor[c].beliefs[s] - dedicated[c].beliefs[s]) <= within);
        CHECK(std::abs(tensor[c].logPartition - dedicated[c].logPartition) <=
              within * std::max(1.0, std::abs(dedicated[c].logPartition)));
    }
}

} // namespace

TEST_CASE("The message ops compute their definitions", "[loopy][tensor]") {
    // fresh [1, 3] normalises to [1/4, 3/4]; half-damped toward [1/2, 1/2] and normalised.
    auto damp = interpretTensorProgram(messageOpProgram(
        Semiring::SumProduct, TensorOpKind::DampMessage, {1, 3}, {0.5, 0.5}, 0.5));
    REQUIRE(damp.ok());
    const double a = std::sqrt(0.25 * 0.5), b = std::sqrt(0.75 * 0.5);
    CHECK(std::abs((*damp)[3][0] - a / (a + b)) < 1e-15);
    CHECK(std::abs((*damp)[3][1] - b / (a + b)) < 1e-15);
    for (double w : {0.0, 1.0}) { // the fresh message alone, or the old one kept
        auto kept = runTensorProgramCpu(messageOpProgram(
            Semiring::MaxProduct, TensorOpKind::DampMessage, {2, 8}, {1, 0.5}, w));
        REQUIRE(kept.ok());
        CHECK((*kept)[3] == (w == 0 ? std::vector<double>{0.25, 1} : std::vector<double>{1, 0.5}));
    }
    auto sum = runTensorProgramCpu(messageOpProgram(
        Semiring::SumProduct, TensorOpKind::MessageResidual, {1, 3}, {0.5, 0.5}, 0));
    REQUIRE(sum.ok());
    CHECK(std::abs((*sum)[3][0] - 0.25) < 1e-15);
    auto max = interpretTensorProgram(messageOpProgram(
        Semiring::MaxProduct, TensorOpKind::MessageResidual, {1, 3}, {1, 1}, 0));
    REQUIRE(max.ok());
    CHECK(std::abs((*max)[3][0] - std::log(3.0)) < 1e-15);
    auto zero = interpretTensorProgram(messageOpProgram(
        Semiring::MaxProduct, TensorOpKind::MessageResidual, {0, 3}, {1, 1}, 0));
    REQUIRE(zero.ok());
    CHECK(std::isinf((*zero)[3][0]));
}

TEST_CASE("The message ops are refused outside product semirings and by other paths",
          "[loopy][tensor]") {
    TensorProgram p = messageOpProgram(Semiring::SumProduct, TensorOpKind::DampMessage, {1, 1},
                                       {1, 1}, 0);
    CHECK(p.verify().ok());
    CHECK_FALSE(refuseMessageOps(p, "x").ok());
    p.semiring = Semiring::MinSum;
    CHECK_FALSE(p.verify().ok());
    TensorProgram r = messageOpProgram(Semiring::MaxProduct, TensorOpKind::MessageResidual, {1, 1},
                                       {1, 1}, 0);
    r.ops[0].inputs.pop_back(); // not a pair
    CHECK_FALSE(r.verify().ok());
}

TEST_CASE("A lowered sweep runs alike on the interpreter and the CPU executor",
          "[loopy][tensor]") {
    std::mt19937 rng(3);
    const BayesNet net = randomPolytree(rng, 9, 3);
    auto tree = factorGraphOfNetwork(net);
    REQUIRE(tree.ok());
    const FactorGraph grid = pairwiseGrid(3, 3, 0.5, 4);
    for (const FactorGraph *g : {static_cast<const FactorGraph *>(&*tree), &grid})
        for (bool maxProduct : {false, true})
            for (bool fastest : {false, true}) {
                LoopyLowering l;
                l.maxProduct = maxProduct;
                l.batch = 3;
                l.batchFastest = fastest;
                l.observed = {1, 4};
                auto lp = lowerLoopySweep(*g, l);
                REQUIRE(lp.ok());
                lp->setEvidence(1, {kNone, 0, kNone, kNone, 1});
                // Messages away from uniform, and weights that damp, keep and replace.
                for (uint32_t t : lp->messageIn)
                    for (double &x : lp->program.tables[t].values)
                        x = 0.1 + double(rng() % 100) / 100;
                lp->program.tables[lp->weight].values = {0.0, 0.5, 1.0};
                checkSweepAgainstInterpreter(*lp);
            }
}

TEST_CASE("On polytrees and chains the tensor program equals the dedicated route and "
          "variable elimination",
          "[loopy][tensor]") {
    std::mt19937 rng(21);
    for (int trial = 0; trial < 12; ++trial) {
        const BayesNet net = trialPolytree(rng, trial);
        auto graph = factorGraphOfNetwork(net);
        REQUIRE(graph.ok());
        const auto [evidence, cases] = sampledCases(net, rng, 4);
        for (LoopySemiring semiring : {LoopySemiring::SumProduct, LoopySemiring::MaxProduct})
            for (double damping : {0.0, 0.3}) {
                INFO("trial " << trial << " max-product "
                              << (semiring == LoopySemiring::MaxProduct) << " damping "
                              << damping);
                LoopyOptions o;
                o.tolerance = 1e-13;
                o.semiring = semiring;
                o.damping = damping;
                o.threads = 1;
                const auto tensor = tensorRun(*graph, cases, o);
                const auto dedicated = runLoopyBp(*graph, cases, o);
                checkSameRuns(*graph, tensor, dedicated, 1e-9, damping > 0 ? 1 : 0);
                if (semiring == LoopySemiring::MaxProduct)
                    continue;
                for (size_t c = 0; c < cases.size(); ++c) { // and exactly P(e)
                    REQUIRE(tensor[c].converged);
                    const double pe = eliminationValue(net, evidence[c], Eliminate::Sum);
                    CHECK(std::abs(tensor[c].logPartition - std::log(pe)) < 1e-9);
                }
            }
    }
}

TEST_CASE("The tasks answer through the tensor program as through the dedicated messages",
          "[loopy][tensor]") {
    std::mt19937 rng(5);
    const BayesNet net = randomPolytree(rng, 10, 3);
    auto graph = factorGraphOfNetwork(net);
    REQUIRE(graph.ok());
    const auto [evidence, cases] = sampledCases(net, rng, 3);
    LoopyOptions o;
    o.tolerance = 1e-12;
    for (Task task : {Task::Pr, Task::Mar, Task::Mpe}) {
        const auto tensor =
            runLoopyTasks(*graph, task, cases, o, DeviceKind::Cpu, LoopyProgramKind::Tensor);
        const auto dedicated = runLoopyTasks(*graph, task, cases, o, DeviceKind::Cpu);
        for (size_t c = 0; c < cases.size(); ++c) {
            REQUIRE(tensor[c].ok());
            REQUIRE(dedicated[c].ok());
            CHECK(tensor[c]->device.label().find("tensor program") != std::string::npos);
            CHECK(tensor[c]->approximate->converged);
            CHECK(std::abs(tensor[c]->log10 - dedicated[c]->log10) < 1e-9);
            CHECK(tensor[c]->assignment == dedicated[c]->assignment);
            for (size_t v = 0; v < tensor[c]->marginals.size(); ++v)
                for (size_t x = 0; x < tensor[c]->marginals[v].size(); ++x)
                    CHECK(std::abs(tensor[c]->marginals[v][x] - dedicated[c]->marginals[v][x]) <
                          1e-9);
        }
    }
}

TEST_CASE("On loopy grids the tensor program reaches the dedicated route's fixed point",
          "[loopy][tensor]") {
    for (uint32_t labels : {2u, 3u}) {
        const FactorGraph g = pairwiseGrid(5, labels, 0.4, labels);
        std::vector<Evidence> cases(3,
                                    Evidence{std::vector<uint32_t>(g.numVariables(), kNone), {}});
        cases[1].states[7] = 1;
        cases[2].states[0] = 0, cases[2].states[24] = labels - 1;
        for (double damping : {0.0, 0.5})
            for (LoopySemiring semiring :
                 {LoopySemiring::SumProduct, LoopySemiring::MaxProduct}) {
                if (semiring == LoopySemiring::MaxProduct && damping == 0)
                    continue; // undamped max-product may cycle on loops (Weiss and Freeman 2001)
                INFO("labels " << labels << " damping " << damping << " max-product "
                               << (semiring == LoopySemiring::MaxProduct));
                LoopyOptions o;
                o.damping = damping;
                o.semiring = semiring;
                o.tolerance = 1e-9;
                o.threads = 2;
                const auto tensor = tensorRun(g, cases, o);
                const auto dedicated = runLoopyBp(g, cases, o);
                for (const LoopyCase &c : dedicated)
                    REQUIRE(c.converged);
                checkSameRuns(g, tensor, dedicated, 1e-7, 1);
            }
    }
}

TEST_CASE("An instance that stops early keeps its messages while the batch goes on",
          "[loopy][tensor]") {
    // A strongly coupled grid converges slowly; evidence on every variable makes the second
    // instance converge at once. Run together and alone, each answers the same.
    const FactorGraph g = pairwiseGrid(4, 2, 0.8, 9);
    Evidence free{std::vector<uint32_t>(g.numVariables(), kNone), {}}, clamped = free;
    for (uint32_t v = 0; v < g.numVariables(); ++v)
        clamped.states[v] = v % 2;
    LoopyOptions o;
    o.tolerance = 1e-10;
    o.damping = 0.2;
    const auto both = tensorRun(g, {free, clamped}, o);
    const auto first = tensorRun(g, {free}, o), second = tensorRun(g, {clamped}, o);
    REQUIRE(both[1].iterations < both[0].iterations);
    checkSameRuns(g, {both[0]}, first, 1e-12, 0);
    checkSameRuns(g, {both[1]}, second, 1e-12, 0);
    const std::vector<Evidence> pair{free, clamped};
    checkSameRuns(g, both, runLoopyBp(g, pair, o), 1e-8, 1);
}

TEST_CASE("Evidence without support, a residual schedule and a factor too wide are refused",
          "[loopy][tensor]") {
    FactorGraph g;
    g.file = "tiny.uai";
    g.names = {"a", "b"};
    g.domainSizes = {2, 2};
    g.factors.push_back({{0, 1}, {0, -INFINITY, -INFINITY, 0}}); // a = b
    REQUIRE(finishFactorGraph(g).ok());
    LoopyOptions o;
    const auto runs = tensorRun(g, {Evidence{{0, 1}, {}}, Evidence{{0, 0}, {}}}, o);
    CHECK(runs[0].vanished);
    CHECK_FALSE(runs[1].vanished);
    CHECK(runs[1].converged);
    o.schedule = LoopySchedule::Residual;
    const std::vector<Evidence> none{Evidence{{kNone, kNone}, {}}};
    CHECK_FALSE(runLoopyTensor(g, none, o, "cpu").ok());
    g.factors[0].logValues = {0, -800, -800, 0};
    auto wide = lowerLoopySweep(g, {});
    REQUIRE_FALSE(wide.ok());
    CHECK(wide.error().str().find("--lbp-program messages") != std::string::npos);
}
