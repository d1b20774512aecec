// Every kernel the generator writes compiles with NVRTC (no GPU needed): random programs of every
// op kind and both kernel variants, every semiring, and the SPOT5 404 program.
#include "backends/cuda/nvrtc.h"
#include "backends/tensor/cuda/tensor_kernels.h"
#include "compiler/elimination/bucket_program.h"
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/lower_junction_tree.h"
#include "compiler/junction_tree/moral_graph.h"

#include "tests/catch.hpp"
#include "tests/support/bn_brute_force.h"
#include "tests/support/min_fill_order.h"
#include "tests/support/random_networks.h"

#include <filesystem>

using namespace zbddc;
using namespace zbddc::cuda;
using zbddc::testing::minFillOrder;

namespace {
void checkCompiles(const TensorProgram &p, const TensorKernelOptions &ko) {
    const std::string src = generateTensorProgramSource(p, ko);
    NvrtcOptions nv;
    nv.arch = "sm_90";
    nv.useCache = false;
    auto ptx = compileToPtx(src, "tensor.cu", nv);
    INFO(src);
    REQUIRE(ptx.ok());
    for (uint32_t op = 0; op < p.ops.size(); ++op)
        CHECK(ptx->ptx.find(".entry " + tensorKernelName(op) + "(") != std::string::npos);
}
} // namespace

TEST_CASE("generated tensor kernels compile with NVRTC: random programs, all op kinds",
          "[cuda][nvrtc]") {
    std::mt19937 rng(21);
    for (int trial = 0; trial < 6; ++trial) {
        const CostNetwork net =
            testing::randomNetwork(rng, 4 + rng() % 5, 3 + rng() % 6, 5, 3, 9, trial % 2);
        std::vector<uint32_t> evidence(net.numVariables(), UINT32_MAX);
        evidence[0] = 0;
        auto p = buildBucketProgram(net, minFillOrder(net), {trial % 2 == 0, evidence});
        REQUIRE(p.ok());
        p->semiring = static_cast<Semiring>(trial % 4); // the kernels do not care what they hold
        TensorKernelOptions ko;
        ko.warpRowThreshold = trial % 3 == 0 ? 2 : 32; // exercise the warp-per-row variant
        ko.eliminationRange = trial % 2 == 1;        // the out-of-core split-elimination variant
        checkCompiles(*p, ko);
        if (ko.eliminationRange)
            CHECK(generateTensorProgramSource(*p, ko).find("u64 elimBegin, u64 elimCount") !=
                  std::string::npos);
    }
}

TEST_CASE("generated tensor kernels compile with NVRTC: SPOT5 404", "[cuda][nvrtc]") {
    const std::string path = std::string(ZBDDC_BENCHMARKS_DIR) + "/wcsp/404.wcsp";
    if (!std::filesystem::exists(path)) {
        WARN("skipped: " << path << " is absent");
        return;
    }
    auto net = readCostNetworkFile(path);
    REQUIRE(net.ok());
    auto p = buildBucketProgram(*net, minFillOrder(*net));
    REQUIRE(p.ok());
    checkCompiles(*p, {});
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
        lowering.belief = trial == 1 ? JunctionTreeLowering::Belief::Always
                                     : JunctionTreeLowering::Belief::Never;
        auto lowered = lowerJunctionTree(net, *tree, lowering);
        REQUIRE(lowered.ok());
        TensorKernelOptions ko;
        ko.warpRowThreshold = trial % 2 ? 2 : 32;
        checkCompiles(lowered->program, ko);
    }
}
