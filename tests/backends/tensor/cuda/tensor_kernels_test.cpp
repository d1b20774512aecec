// Every kernel the generator writes compiles with NVRTC (no GPU needed): random programs of every
// op kind and both kernel variants, specialised and generic, every semiring, and the SPOT5 404
// program.
#include "backends/cuda/nvrtc.h"
#include "backends/tensor/cuda/codegen/tensor_kernels.h"
#include "backends/tensor/cuda/codegen/tensor_module_sources.h"
#include "compiler/elimination/bucket_program.h"
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/lower_junction_tree.h"
#include "compiler/junction_tree/moral_graph.h"

#include "tests/backends/tensor/cuda/host_kernel_programs.h"
#include "tests/backends/tensor/cuda/ptx_entry.h"
#include "tests/catch.hpp"
#include "tests/support/bn_brute_force.h"
#include "tests/support/min_fill_order.h"
#include "tests/support/random_networks.h"

#include <filesystem>

using namespace zbddc;
using namespace zbddc::cuda;
using zbddc::testing::minFillOrder;

namespace {
// Compiles the program's kernels and checks every op's entry is there: with `ko` as given, or
// (bothWays) each op specialised, then each op that can be generic (generic_tensor_kernels.h)
// generic. Returns the PTX, both one after the other.
std::string checkCompiles(const TensorProgram &p, TensorKernelOptions ko, bool bothWays = true) {
    std::string both;
    const uint64_t given = ko.genericMaxWork;
    for (const uint64_t genericMaxWork : {uint64_t{0}, UINT64_MAX}) {
        ko.genericMaxWork = bothWays ? genericMaxWork : given;
        const std::string src = testing::programSource(p, ko);
        NvrtcOptions nv;
        nv.arch = "sm_90";
        nv.useCache = false;
        auto ptx = compileToPtx(src, "tensor.cu", nv);
        INFO(src);
        REQUIRE(ptx.ok());
        for (uint32_t op = 0; op < p.ops.size(); ++op)
            CHECK(ptx->ptx.find(".entry " + testing::opKernelName(op) + "(") != std::string::npos);
        both += ptx->ptx;
        if (!bothWays)
            break;
    }
    return both;
}
} // namespace

TEST_CASE("generated tensor kernels compile with NVRTC: random programs, all op kinds",
          "[cuda][nvrtc]") {
    std::mt19937 rng(21);
    for (int trial = 0; trial < 10; ++trial) {
        const CostNetwork net =
            testing::randomNetwork(rng, 4 + rng() % 5, 3 + rng() % 6, 5, 3, 9, trial % 2);
        std::vector<uint32_t> evidence(net.numVariables(), UINT32_MAX);
        evidence[0] = 0;
        auto p = buildBucketProgram(net, minFillOrder(net), {trial % 2 == 0, evidence});
        REQUIRE(p.ok());
        // Every semiring (the kernels do not care what the tables hold).
        p->semiring = static_cast<Semiring>(trial % 5);
        TensorKernelOptions ko;
        ko.warpRowThreshold = trial % 3 == 0 ? 2 : 32; // exercise the warp-per-row variant
        ko.eliminationRange = trial % 2 == 1;          // the out-of-core split-elimination variant
        ko.rowGroupMinRows = 0;                        // row groups wherever they fit
        ko.rowGroupMinStride = 1;
        ko.streamingStoreMinBytes = trial % 4 < 2 ? 1 : 0; // every output streamed, or none
        ko.fusedEntries = trial % 3 != 1;                  // generic kernels' fused entries
        checkCompiles(*p, ko);
        if (p->semiring != Semiring::MinSumInt64) { // int64 costs are never narrowed
            ko.float32 = true;                        // tables of floats (narrow_costs.h)
            checkCompiles(*p, ko);
        }
        if (ko.eliminationRange)
            CHECK(testing::programSource(*p, ko).find("u64 elimBegin, u64 elimCount") !=
                  std::string::npos);
    }
}

TEST_CASE("MinSumInt64 kernels do no floating-point work: int64 words are never read as doubles",
          "[cuda][nvrtc][int64]") {
    // Both kernel variants, with and without an elimination range; evidence slices too.
    std::mt19937 rng(22);
    for (int trial = 0; trial < 4; ++trial) {
        const CostNetwork net =
            testing::randomNetwork(rng, 4 + rng() % 4, 3 + rng() % 5, 5, 3, 9, trial % 2);
        std::vector<uint32_t> evidence(net.numVariables(), UINT32_MAX);
        evidence[0] = 0;
        auto p = buildBucketProgram(net, minFillOrder(net), {trial % 2 == 0, evidence});
        REQUIRE(p.ok());
        TensorKernelOptions ko;
        ko.warpRowThreshold = trial < 2 ? 2 : 32;
        ko.eliminationRange = trial % 2 == 1;
        CHECK(testing::usesFloatingPoint(checkCompiles(*p, ko))); // MinSum: the check sees it
        p->semiring = Semiring::MinSumInt64;
        CHECK(!testing::usesFloatingPoint(checkCompiles(*p, ko)));
    }
}

TEST_CASE("row digits are decoded in 32 bits up to 2^32 rows, in 64 above", "[cuda][nvrtc]") {
    // Two inputs of 17 binary variables each, joined: 2^34 output rows (never run, only compiled).
    TensorProgram p;
    p.domainSizes.assign(34, 2);
    for (uint32_t half = 0; half < 2; ++half) {
        Table t;
        for (uint32_t v = 0; v < 17; ++v) {
            t.scope.push_back(half * 17 + v);
            t.domains.push_back(2);
        }
        t.input = true;
        t.values.assign(t.entries(), 1.0);
        p.tables.push_back(std::move(t));
    }
    Table joined;
    for (uint32_t v = 0; v < 34; ++v) {
        joined.scope.push_back(v);
        joined.domains.push_back(2);
    }
    p.tables.push_back(joined);
    Table marginal; // one input's variables eliminated: 2^17 rows, 2^17 eliminated values
    for (uint32_t v = 0; v < 17; ++v) {
        marginal.scope.push_back(v);
        marginal.domains.push_back(2);
    }
    p.tables.push_back(marginal);
    p.ops.push_back({TensorOpKind::Join, {0, 1}, 2, {}, {}});
    std::vector<uint32_t> eliminated;
    for (uint32_t v = 17; v < 34; ++v)
        eliminated.push_back(v);
    p.ops.push_back({TensorOpKind::EliminateBucket, {0, 1}, 3, eliminated, {}});
    computeLevels(p);
    REQUIRE(p.verify().ok());
    TensorKernelOptions threadPerRow;
    threadPerRow.rowGroups = false;
    const std::string src = testing::programSource(p, threadPerRow);
    const size_t op1 = src.find(testing::opKernelName(1) + "(");
    REQUIRE(op1 != std::string::npos);
    CHECK(src.find("u64 rest = (u64)(rowBegin + r)") < op1);           // 2^34 rows: 64 bits
    CHECK(src.find("unsigned rest = (unsigned)(rowBegin + r)") > op1); // 2^17 rows: 32 bits
    CHECK(src.find("unsigned er = (unsigned)e") > op1);                // 2^17 joint values
    checkCompiles(p, threadPerRow);
    // The join in row groups (each input lacks half the output's variables): 64-bit groups too.
    REQUIRE(rowGroupOf(p, 0, {}).rows() == 4);
    const std::string grouped = testing::programSource(p, {});
    CHECK(grouped.find("const u64 g = (u64)gi") < grouped.find(testing::opKernelName(1) + "("));
    checkCompiles(p, {});
    // Its groups' tiles interleaved (each input lacks variables outside them): 64-bit indices.
    TensorKernelOptions interleaving;
    interleaving.interleaveMinBytes = 0;
    REQUIRE(rowGroupOf(p, 0, interleaving).interleaved.size == 2);
    const std::string tiled = testing::programSource(p, interleaving);
    CHECK(tiled.find("u64 ga = (u64)(firstGroup + gi)") < tiled.find(testing::opKernelName(1) + "("));
    checkCompiles(p, interleaving);
}

TEST_CASE("interleaved row groups compile with NVRTC", "[cuda][nvrtc]") {
    std::mt19937 rng(23);
    for (uint32_t f : {5u, 4u}) {
        const TensorProgram p = testing::expandingJoinProgram(rng, f);
        TensorKernelOptions ko;
        ko.rowGroupMinRows = 0;
        ko.rowGroupMinStride = 1;
        ko.interleaveMinBytes = 0;
        ko.interleaveTileGroups = f;
        ko.sharedInputMaxEntries = 0; // every input read from global memory
        REQUIRE(rowGroupOf(p, 0, ko).interleaved.size > 1);
        CHECK(testing::programSource(p, ko).find(
                  "unsigned ga = (unsigned)(firstGroup + gi)") != std::string::npos);
        checkCompiles(p, ko);
    }
}

TEST_CASE("generated tensor kernels compile with NVRTC: SPOT5 404", "[cuda][nvrtc]") {
    const std::string path = std::string(ZBDDC_BENCHMARKS_DIR) + "/wcsp/404.wcsp";
    REQUIRE(std::filesystem::exists(path));
    auto net = readCostNetworkFile(path);
    REQUIRE(net.ok());
    auto p = buildBucketProgram(*net, minFillOrder(*net));
    REQUIRE(p.ok());
    checkCompiles(*p, {}, false); // large ops specialised, small ones generic
    TensorKernelOptions narrow;
    narrow.float32 = true;
    checkCompiles(*p, narrow, false);
}

TEST_CASE("generated tensor kernels compile with NVRTC: batched junction trees", "[cuda][nvrtc]") {
    // Evidence tables, rescaling (InverseMax over separators and entry by entry), Hugin's
    // division and both layouts of the case index.
    std::mt19937 rng(8);
    for (int trial = 0; trial < 4; ++trial) {
        const BayesNet net = testing::randomBayesNet(rng, 6 + trial);
        auto tree = buildJunctionTree(net, greedyOrder(moralGraph(net), OrderHeuristic::MinFill));
        REQUIRE(tree.ok());
        JunctionTreeLowering lowering;
        lowering.maxProduct = trial == 3;
        lowering.marginals = trial < 3;
        lowering.batch = 33;
        lowering.observed = {0, 2, 4};
        lowering.batchFastest = trial % 2 == 0;
        lowering.belief =
            trial == 1 ? JunctionTreeLowering::Belief::Always : JunctionTreeLowering::Belief::Never;
        auto lowered = lowerJunctionTree(net, *tree, lowering);
        REQUIRE(lowered.ok());
        TensorKernelOptions ko;
        ko.warpRowThreshold = trial % 2 ? 2 : 32;
        checkCompiles(lowered->program, ko);
    }
}

TEST_CASE("ops of one shape share one kernel text, small ops their family's generic one, and the "
          "modules compile to CUBIN",
          "[cuda][nvrtc]") {
    // A batched junction tree repeats shapes (evidence tables, rescaling of equal separators), and
    // its small ops of different shapes fall into few generic families.
    std::mt19937 rng(12);
    size_t ops = 0, specialised = 0, withGeneric = 0, generic = 0;
    for (int trial = 0; trial < 3; ++trial) {
        const BayesNet net = testing::randomBayesNet(rng, 12 + trial);
        auto tree = buildJunctionTree(net, greedyOrder(moralGraph(net), OrderHeuristic::MinFill));
        REQUIRE(tree.ok());
        JunctionTreeLowering lowering;
        lowering.marginals = true;
        lowering.batch = 16;
        for (uint32_t v = 0; v < net.variables.size(); ++v)
            lowering.observed.push_back(v);
        auto lowered = lowerJunctionTree(net, *tree, lowering);
        REQUIRE(lowered.ok());
        const TensorProgram &p = lowered->program;
        ops += p.ops.size();
        for (const uint64_t genericMaxWork : {uint64_t{0}, kGenericMaxWork}) {
            TensorKernelOptions ko;
            ko.genericMaxWork = genericMaxWork;
            const TensorKernelSet set = distinctTensorKernels(p, ko);
            REQUIRE(set.kernelOf.size() == p.ops.size());
            for (uint32_t o = 0; o < p.ops.size(); ++o) {
                REQUIRE(set.kernelOf[o] < set.texts.size());
                CHECK(set.texts[set.kernelOf[o]] ==
                      tensorKernelText(p, o, ko, kTensorKernelPlaceholder));
            }
            for (size_t a = 0; a < set.texts.size(); ++a)
                for (size_t b = a + 1; b < set.texts.size(); ++b)
                    CHECK(set.texts[a] != set.texts[b]);
            (genericMaxWork ? withGeneric : specialised) += set.texts.size();
            generic += set.genericKernels;
            // The modules TensorModules compiles, as CUBIN for sm_90: every kernel in its module.
            const TensorModuleSources sources = tensorModuleSources(p, ko, 3);
            REQUIRE(sources.kernels == set.texts.size());
            REQUIRE(sources.kernelOf == set.kernelOf);
            NvrtcOptions nv;
            nv.arch = "sm_90";
            nv.useCache = false;
            for (size_t m = 0; m < sources.modules.size(); ++m) {
                auto image = compileForArch(sources.modules[m], "distinct.cu", nv);
                REQUIRE(image.ok());
                CHECK(image->cubin);
                CHECK(image->image.rfind(std::string("\x7f") + "ELF", 0) == 0); // an ELF file
                for (uint32_t k = 0; k < sources.kernels; ++k)
                    if (sources.moduleOf[k] == m)
                        CHECK(image->image.find('\0' + tensorModuleKernelName(k) + '\0') !=
                              std::string::npos);
            }
        }
    }
    CHECK(specialised < ops);         // shapes do repeat
    CHECK(withGeneric < specialised); // and small ops of different shapes share generic kernels
    CHECK(generic > 0);
}

TEST_CASE("the sources key: the tables' values leave it, every option and generator setting moves "
          "it",
          "[cuda][kernels]") {
    std::mt19937 rng(14);
    const CostNetwork net = testing::randomNetwork(rng, 8, 10, 4, 4, 50, true);
    auto built = buildBucketProgram(net, minFillOrder(net));
    REQUIRE(built.ok());
    const TensorProgram &p = *built;
    const TensorKernelOptions ko;
    const std::vector<uint64_t> key = tensorSourcesKey(p, ko);

    TensorProgram revalued = p; // other costs, the same shapes: the same kernels
    for (Table &t : revalued.tables)
        for (double &v : t.values)
            v += 1;
    CHECK(tensorSourcesKey(revalued, ko) == key);
    CHECK(testing::programSource(revalued, ko) == testing::programSource(p, ko));

    TensorProgram other = p;
    other.semiring = Semiring::MaxSum;
    CHECK(tensorSourcesKey(other, ko) != key);
    other = p;
    std::swap(other.ops.back().inputs.front(), other.ops.back().inputs.back());
    if (other.ops.back().inputs.size() > 1)
        CHECK(tensorSourcesKey(other, ko) != key);

    // Each option on its own (its size is checked where the key is built).
    const std::vector<void (*)(TensorKernelOptions &)> changes = {
        [](TensorKernelOptions &o) { o.blockThreads = 128; },
        [](TensorKernelOptions &o) { o.warpRowThreshold = 8; },
        [](TensorKernelOptions &o) { o.sharedInputBytes = 1024; },
        [](TensorKernelOptions &o) { o.sharedInputMaxEntries = 16; },
        [](TensorKernelOptions &o) { o.eliminationRange = true; },
        [](TensorKernelOptions &o) { o.rowGroups = false; },
        [](TensorKernelOptions &o) { o.rowGroupMaxSize = 4; },
        [](TensorKernelOptions &o) { o.rowGroupMaxRows = 8; },
        [](TensorKernelOptions &o) { o.rowGroupPairsWhenExpanding = false; },
        [](TensorKernelOptions &o) { o.rowGroupMinRows = 1; },
        [](TensorKernelOptions &o) { o.rowGroupMinStride = 1; },
        [](TensorKernelOptions &o) { o.float32 = true; },
        [](TensorKernelOptions &o) { o.fusedEntries = true; },
        [](TensorKernelOptions &o) { o.streamingStoreMinBytes = 1; },
        [](TensorKernelOptions &o) { o.genericMaxWork = 0; },
    };
    for (size_t c = 0; c < changes.size(); ++c) {
        TensorKernelOptions changed;
        changes[c](changed);
        INFO("option change " << c);
        CHECK(tensorSourcesKey(p, changed) != key);
    }
    // The environment is no input of the generators: the same options, the same key.
    setenv("ZBDDC_GPU_ROW_GROUPS", "0", 1);
    CHECK(tensorSourcesKey(p, ko) == key);
    unsetenv("ZBDDC_GPU_ROW_GROUPS");
}
