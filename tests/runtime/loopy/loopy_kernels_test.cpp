// Every kernel loopy BP generates compiles with NVRTC (no GPU needed): both designs forced on
// pairwise grids of 2 and 31 labels, the protein-like model, and networks whose CPTs give many
// shapes (pathfinder's 63-state variable among them), for batches of 1 and 2,000; and the plan
// takes each design where the rule says.
#include "backends/cuda/loopy_kernels.h"
#include "backends/cuda/nvrtc.h"
#include "compiler/loopy/loopy_design.h"

#include "tests/catch.hpp"
#include "tests/support/synthetic_factor_graphs.h"

using namespace zbddc;
using namespace zbddc::testing;

namespace {

void checkCompiles(const FactorGraph &g, uint32_t batch, const LoopyGpuDesign *force) {
    const LoopyGpuPlan plan = planLoopyGpu(g, batch, force);
    cuda::NvrtcOptions nv;
    nv.arch = "sm_90";
    nv.useCache = false;
    auto ptx = cuda::compileToPtx(cuda::loopyKernelSource(plan), "loopy_bp.cu", nv);
    if (!ptx)
        FAIL(ptx.error().str());
    for (const char *common : {"lbp_sums", "lbp_finish", "lbp_commit"})
        CHECK(ptx->ptx.find(std::string(".entry ") + common) != std::string::npos);
    for (size_t i = 0; i < plan.groups.size(); ++i) {
        CHECK(ptx->ptx.find(".entry " + cuda::loopyGroupKernel(plan.groups[i], i)) != std::string::npos);
        if (plan.groups[i].design == LoopyGpuDesign::Cooperative)
            CHECK(plan.groups[i].sharedBytes <= kLoopySharedBytes);
    }
}

} // namespace

TEST_CASE("Every generated loopy BP kernel compiles with NVRTC", "[loopy][nvrtc]") {
    const LoopyGpuDesign designs[] = {LoopyGpuDesign::DataParallel, LoopyGpuDesign::Cooperative};
    std::vector<FactorGraph> graphs{pairwiseGrid(4, 2, 0.5, 1), pairwiseGrid(3, 31, 0.5, 2),
                                    proteinLikeModel(3)};
    for (const char *net : {"alarm.bif", "pathfinder.bif"}) {
        auto read = readNetworkFile(ZBDDC_BENCHMARKS_DIR "/bn/" + std::string(net));
        REQUIRE(read.ok());
        auto g = factorGraphOfNetwork(*read);
        REQUIRE(g.ok());
        graphs.push_back(std::move(*g));
    }
    for (const FactorGraph &g : graphs) {
        INFO(g.file);
        for (const LoopyGpuDesign &d : designs)
            checkCompiles(g, 1, &d);
        checkCompiles(g, 1, nullptr);
        checkCompiles(g, 2000, nullptr);
    }
}

TEST_CASE("The plan takes thread-cooperative blocks for large factors of small batches only",
          "[loopy]") {
    const FactorGraph protein = proteinLikeModel(3);
    const LoopyGpuPlan one = planLoopyGpu(protein, 1), many = planLoopyGpu(protein, 2000);
    REQUIRE(one.groups.size() == 2); // the fields (31) and the pairs (31 x 31): both small
    for (const LoopyFactorGroup &g : one.groups)
        CHECK(g.design == LoopyGpuDesign::DataParallel); // measured faster even at one instance
    for (const LoopyFactorGroup &g : many.groups)
        CHECK(g.design == LoopyGpuDesign::DataParallel);
    // 128 labels: pairs of 16,384 entries, where a block per factor takes over below the
    // crossover batch.
    const FactorGraph wide = pairwiseGrid(3, 128, 0.5, 1);
    const LoopyGpuPlan wideOne = planLoopyGpu(wide, 1), wideMany = planLoopyGpu(wide, 2000);
    size_t cooperative = 0;
    for (const LoopyFactorGroup &g : wideOne.groups) {
        CHECK(g.design == (g.entries >= kLoopyCooperativeMinEntries
                               ? LoopyGpuDesign::Cooperative
                               : LoopyGpuDesign::DataParallel));
        if (g.design == LoopyGpuDesign::Cooperative) {
            ++cooperative;
            CHECK(g.threads <= g.entries);
            CHECK(g.sharedBytes <= kLoopySharedBytes);
        }
    }
    CHECK(cooperative > 0);
    for (const LoopyFactorGroup &g : wideMany.groups)
        CHECK(g.design == LoopyGpuDesign::DataParallel);
    CHECK(protein.numVariables() == kProteinVariables);
    CHECK(protein.factors.size() == kProteinVariables + kProteinPairwiseFactors);
}
