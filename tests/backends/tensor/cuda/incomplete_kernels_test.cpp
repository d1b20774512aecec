// The incomplete-table kernels (backends/tensor/cuda/codegen/incomplete_kernels) compile with NVRTC
// for the GPUs we run on, and every kernel the host side launches is in the PTX (no GPU needed).
#include "backends/cuda/nvrtc.h"
#include "backends/tensor/cuda/codegen/incomplete_kernels.h"

#include "tests/backends/tensor/cuda/ptx_entry.h"
#include "tests/catch.hpp"

using namespace zbddc::cuda;

TEST_CASE("incomplete-table kernels compile with NVRTC", "[cuda][nvrtc][incomplete]") {
    for (const char *arch : {"sm_90", "sm_80"}) {
        NvrtcOptions nv;
        nv.arch = arch;
        nv.useCache = false;
        const std::string src = incompleteKernelSource();
        auto ptx = compileToPtx(src, "incomplete.cu", nv);
        INFO(arch << "\n" << (ptx ? std::string() : ptx.error().message));
        REQUIRE(ptx.ok());
        for (const std::string &name : incompleteKernelNames()) {
            const std::string_view entry = zbddc::testing::ptxEntry(ptx->ptx, name);
            INFO(name);
            CHECK(!entry.empty());
            // The _i64 kernels (MinSumInt64) compare and add whole costs as integers only.
            if (name.ends_with("_i64"))
                CHECK(!zbddc::testing::usesFloatingPoint(entry));
        }
        // The check sees the double kernels' arithmetic.
        CHECK(
            zbddc::testing::usesFloatingPoint(zbddc::testing::ptxEntry(ptx->ptx, "zb_join_count")));
    }
}
