// The device VALUE phase's kernel compiles with NVRTC (no GPU needed) and exports its entries.
#include "backends/cuda/nvrtc.h"
#include "backends/tensor/cuda/run/value_phase_gpu.h"

#include "tests/backends/tensor/cuda/ptx_entry.h"
#include "tests/catch.hpp"

using namespace zbddc::cuda;

TEST_CASE("the VALUE phase kernel compiles with NVRTC", "[cuda][nvrtc][value]") {
    NvrtcOptions nv;
    nv.arch = "sm_90";
    nv.useCache = false;
    const std::string src = valuePhaseKernelSource();
    auto ptx = compileToPtx(src, "zbddc_value_phase.cu", nv);
    INFO(src << (ptx ? "" : ptx.error().str()));
    REQUIRE(ptx.ok());
    CHECK(ptx->ptx.find(".entry zb_value_phase(") != std::string::npos);
    CHECK(ptx->ptx.find(".entry zb_value_phase_f32(") != std::string::npos);
    // Every entry is bounded for a block of 32 warps, so its registers fit that launch.
    size_t bounded = 0;
    for (size_t at = 0; (at = ptx->ptx.find(".maxntid 1024, 1, 1", at)) != std::string::npos; ++at)
        ++bounded;
    CHECK(bounded == 3);
    // MinSumInt64's entry sums and compares whole costs as integers: no floating-point work
    // (which the double entry, for contrast, does).
    const std::string_view costs = zbddc::testing::ptxEntry(ptx->ptx, "zb_value_phase_i64");
    CHECK(!costs.empty());
    CHECK(!zbddc::testing::usesFloatingPoint(costs));
    CHECK(zbddc::testing::usesFloatingPoint(zbddc::testing::ptxEntry(ptx->ptx, "zb_value_phase")));
}
