// The single-launch kernels (single_launch.h) on a real GPU: forward values and adjoints against
// the reference evaluator and against the level kernels of the same circuit, to 1e-12 relative,
// in float64 and log space, at B = 1, 128 and 1,024 (and a partial last launch), on the PySDD
// circuits of tests/compiler/frontends/circuit_files, a ZBDD-shaped circuit of KLay's benchmark
// size, and one too large for shared memory run with its plan forced (slots partly global).
// Both the dense calls and the varying-input batches (a literal-weight batch, as the runtime
// sends it) are run; and the interpreted op types (CudaOptions::opTypes) against the
// reference, and a model that runs them until its compiled module is built. Results are poisoned
// with NaN before every run. Exits 77 without a GPU.
#include "backends/cuda/cuda_model.h"
#include "compiler/frontends/circuits/circuit_load.h"
#include "compiler/frontends/circuits/literal_weights.h"
#include "ir/interpret.h"
#include "runtime/cuda_circuit.h"

#include "tests/catch.hpp"
#include "tests/support/close.h"
#include "tests/support/cuda_model_runs.h"
#include "tests/support/logic_circuit_oracles.h"
#include "tests/support/random_circuits.h"
#include "tests/support/scratch.h"
#include "tests/support/skip.h"

#include <random>

using namespace zbddc;
using namespace zbddc::cuda;
using zbddc::testing::close;
using zbddc::testing::Run;
using zbddc::testing::runSynchronously;

namespace {

const bool gpuPresent = [] {
    testing::skipProgramUnless(cudaAvailable(), "no GPU");
    return true;
}();

constexpr double kTol = 1e-12;

// Output 0's values and the varying inputs' adjoints of a varying batch.
Run runVarying(CudaModel &m, const InputBatch &b) {
    REQUIRE(m.poisonResults().ok());
    auto grad = m.adjointsOfVarying(b, 0);
    if (!grad)
        FAIL(grad.error().str());
    return {std::move(grad->values), std::move(grad->adjoints)};
}

int countMismatches(const std::vector<double> &got, const std::vector<double> &want,
                    const char *what) {
    REQUIRE(got.size() == want.size());
    int bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
        if (!close(got[i], want[i], kTol) && bad++ < 5)
            FAIL_CHECK(what << " [" << i << "]: " << got[i] << " against " << want[i]);
    return bad;
}

// How the single-launch model is asked for: auto (which must choose it), auto where it chooses it
// and forced where it declines (a circuit past its limits at that batch), or forced.
enum class SinglePlan { Auto, AutoElseForced, Forced };

// The single-launch model and the level kernels' over the same vectors, both against the
// reference, then against each other. Returns the ops whose backward gather the single-launch
// kernel ran in pieces (OpPieces). `interpreted`: both models' op types as data
// (CudaOptions::opTypes), else compiled for the circuit.
size_t compareKernels(const Circuit &c, Numeric numeric, uint32_t batch, size_t count,
                      SinglePlan plan, uint32_t seed, bool interpreted = false) {
    const bool log = inLogSpace(numeric);
    CudaOptions o;
    o.logSpace = log;
    o.batch = batch;
    o.opTypes = interpreted ? OpTypeKernels::Interpreted : OpTypeKernels::Compiled;
    if (plan == SinglePlan::Forced)
        o.singleLaunch = true;
    auto single = compileCircuitForCuda(c, o);
    if (!single)
        FAIL(single.error().str());
    if (plan == SinglePlan::AutoElseForced && !single->singleLaunch()) {
        o.singleLaunch = true;
        single = compileCircuitForCuda(c, o);
        if (!single)
            FAIL(single.error().str());
    }
    REQUIRE(single->singleLaunch().has_value());
    o.singleLaunch = false;
    auto levels = compileCircuitForCuda(c, o);
    if (!levels)
        FAIL(levels.error().str());
    REQUIRE(!levels->singleLaunch().has_value());
    REQUIRE(single->interpretedTypes() == interpreted);
    REQUIRE(levels->interpretedTypes() == interpreted);
    INFO("lanes per block " << single->singleLaunch()->lanes() << ", blocks "
                            << single->singleLaunch()->blocks << ", threads "
                            << single->singleLaunch()->threads << ", shared slots "
                            << single->singleLaunch()->params.sharedSlots << " of "
                            << single->plan().numSlots);

    const auto xs = testing::randomInputs(count * c.numInputs(), seed, 0.3, 0.9);
    Run ref;
    for (size_t v = 0; v < count; ++v) {
        auto e = evaluate(c, std::span(xs.data() + v * c.numInputs(), c.numInputs()), c.semiring,
                          numeric);
        REQUIRE(e.ok());
        for (uint32_t out : c.outputs)
            ref.outputs.push_back(e->values[out]);
        const auto adj = inputAdjoints(c, *e, 0);
        ref.adjoints.insert(ref.adjoints.end(), adj.begin(), adj.end());
    }
    const Run s = runSynchronously(*single, xs, count), l = runSynchronously(*levels, xs, count);
    CHECK(countMismatches(s.outputs, ref.outputs, "single-launch output") == 0);
    CHECK(countMismatches(s.adjoints, ref.adjoints, "single-launch adjoint") == 0);
    CHECK(countMismatches(s.outputs, l.outputs, "single-launch against level output") == 0);
    CHECK(countMismatches(s.adjoints, l.adjoints, "single-launch against level adjoint") == 0);

    // A varying batch: the first half of the inputs vary, the rest shared.
    InputBatch b;
    b.shared.assign(xs.begin(), xs.begin() + c.numInputs());
    for (uint32_t i = 0; i < c.numInputs() / 2 + 1 && i < c.numInputs(); ++i)
        b.varying.push_back(i);
    for (size_t v = 0; v < count; ++v) {
        std::vector<double> row;
        for (uint32_t i : b.varying)
            row.push_back(xs[v * c.numInputs() + i]);
        b.add(row);
    }
    const Run sv = runVarying(*single, b), lv = runVarying(*levels, b);
    CHECK(countMismatches(sv.outputs, lv.outputs, "varying: output") == 0);
    CHECK(countMismatches(sv.adjoints, lv.adjoints, "varying: adjoint") == 0);
    return opPieces(single->plan()).splitOp.size();
}

} // namespace

TEST_CASE("single-launch kernels equal the reference and the level kernels: PySDD circuits",
          "[gpu][single-launch]") {
    for (const char *name : {"cnf_a", "cnf_b", "cnf_c", "cnf_d", "cnf_e", "cnf_f"}) {
        auto c = loadLogicCircuit(testing::kCircuitFiles + name + ".sdd");
        if (!c)
            FAIL(c.error().str());
        for (Numeric n : {Numeric::Float64, Numeric::Log})
            for (uint32_t batch : {1u, 128u, 1024u}) {
                INFO(name << " " << numericName(n) << " B=" << batch);
                compareKernels(*c, n, batch, batch == 128 ? batch + 37 : batch,
                               SinglePlan::AutoElseForced, batch + 1);
            }
    }
}

TEST_CASE("single-launch kernels: a circuit of KLay's benchmark size, and one forced past shared "
          "memory",
          "[gpu][single-launch]") {
    const Circuit small = testing::randomZddCircuit({.vars = 30, .width = 100, .roots = 2}, 4);
    size_t split = 0;
    for (Numeric n : {Numeric::Float64, Numeric::Log})
        for (uint32_t batch : {1u, 128u, 1024u}) {
            INFO("ZBDD " << small.numNodes() << " nodes " << numericName(n) << " B=" << batch);
            split += compareKernels(small, n, batch, batch == 1024 ? batch : batch + 5,
                                    SinglePlan::Auto, 7);
        }
    CHECK(split > 0); // some op's backward gather ran in pieces
    Circuit maxProduct = small;
    maxProduct.semiring = Semiring::MaxProduct;
    compareKernels(maxProduct, Numeric::Float64, 128, 128, SinglePlan::Auto, 8);
    const Circuit large = testing::randomZddCircuit({.vars = 40, .width = 300, .roots = 2}, 5);
    for (uint32_t batch : {1u, 256u}) {
        INFO("forced, ZBDD " << large.numNodes() << " nodes B=" << batch);
        compareKernels(large, Numeric::Log, batch, batch, SinglePlan::Forced, 9);
    }
}

TEST_CASE("interpreted op types equal the reference and the level kernels", "[gpu][interpreted]") {
    for (const char *name : {"cnf_a", "cnf_d", "cnf_f"}) {
        auto c = loadLogicCircuit(testing::kCircuitFiles + name + ".sdd");
        if (!c)
            FAIL(c.error().str());
        for (Numeric n : {Numeric::Float64, Numeric::Log})
            for (uint32_t batch : {1u, 128u}) {
                INFO(name << " " << numericName(n) << " B=" << batch);
                compareKernels(*c, n, batch, batch + 3, SinglePlan::AutoElseForced, batch + 2,
                               true);
            }
    }
    // Merged ZBDD types (typeA, typeB and trees of them), one past shared memory, max-product.
    const Circuit zdd = testing::randomZddCircuit({.vars = 30, .width = 100, .roots = 2}, 4);
    compareKernels(zdd, Numeric::Log, 128, 133, SinglePlan::Auto, 11, true);
    Circuit maxProduct = zdd;
    maxProduct.semiring = Semiring::MaxProduct;
    compareKernels(maxProduct, Numeric::Float64, 128, 128, SinglePlan::Auto, 12, true);
    const Circuit large = testing::randomZddCircuit({.vars = 40, .width = 300, .roots = 2}, 5);
    compareKernels(large, Numeric::Float64, 256, 256, SinglePlan::Forced, 13, true);
}

TEST_CASE("a model whose compiled types are not cached answers with interpreted ones, then takes "
          "up the compiled module",
          "[gpu][interpreted]") {
    const Circuit c = testing::randomZddCircuit({.vars = 30, .width = 100, .roots = 2}, 6);
    const auto xs = testing::randomInputs(200 * c.numInputs(), 3, 0.3, 0.9);
    for (bool single : {true, false}) {
        INFO((single ? "single launch" : "level kernels"));
        CudaOptions o;
        o.batch = 64;
        o.singleLaunch = single;
        o.opTypes = OpTypeKernels::InterpretedUntilCompiled;
        o.nvrtc.cacheDir = testing::scratchDir() + (single ? "/cache-single" : "/cache-levels");
        auto m = compileCircuitForCuda(c, o);
        if (!m)
            FAIL(m.error().str());
        CHECK(m->interpretedTypes());
        const Run first = runSynchronously(*m, xs, 200);
        REQUIRE(m->awaitCompiledTypes().ok());
        CHECK(!m->interpretedTypes());
        const Run later = runSynchronously(*m, xs, 200);
        CHECK(countMismatches(first.outputs, later.outputs, "output") == 0);
        CHECK(countMismatches(first.adjoints, later.adjoints, "adjoint") == 0);
        // The next model of this circuit finds the compiled module in the cache.
        auto again = compileCircuitForCuda(c, o);
        if (!again)
            FAIL(again.error().str());
        CHECK(!again->interpretedTypes());
        CHECK(again->compiledFromCache());
    }
}
