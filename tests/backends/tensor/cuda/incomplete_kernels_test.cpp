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
        for (const char *name : {"zb_inc_keys", "zb_radix_count", "zb_radix_scatter", "zb_scan_tiles",
                                 "zb_scan_add", "zb_heads", "zb_groups", "zb_join_count",
                                 "zb_join_write", "zb_output_keys", "zb_segment_min",
                                 "zb_join_count_i64", "zb_join_write_i64", "zb_segment_min_i64"}) {
            const std::string_view entry = zbddc::testing::ptxEntry(ptx->ptx, name);
            INFO(name);
            CHECK(!entry.empty());
            // The _i64 kernels (MinSumInt64) compare and add whole costs as integers only.
            if (std::string_view(name).ends_with("_i64"))
                CHECK(!zbddc::testing::usesFloatingPoint(entry));
        }
        // The check sees the double kernels' arithmetic.
        CHECK(
            zbddc::testing::usesFloatingPoint(zbddc::testing::ptxEntry(ptx->ptx, "zb_join_count")));
    }
}
