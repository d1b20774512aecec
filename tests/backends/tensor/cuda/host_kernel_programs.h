// The programs whose generated tensor kernels tensor_kernels_host_test runs on the host: random
// bucket programs (fused and not, with evidence), each with kernel options that reach the
// row-group path on small tables. The build-time helper (emit_host_tensor_kernels) writes their
// kernels and the test rebuilds the same programs, so both call this.
#pragma once

#include "backends/tensor/cuda/tensor_kernels.h"
#include "compiler/elimination/bucket_program.h"

#include "tests/support/min_fill_order.h"
#include "tests/support/random_networks.h"

#include <stdexcept>

namespace zbddc::testing {

inline constexpr int kHostKernelPrograms = 12;

inline std::vector<TensorProgram> hostKernelPrograms() {
    std::mt19937 rng(41);
    std::vector<TensorProgram> programs;
    for (int i = 0; i < kHostKernelPrograms; ++i) {
        const CostNetwork net = randomNetwork(rng, 4 + rng() % 6, 3 + rng() % 8, 6, 4, 50, i % 2);
        std::vector<uint32_t> evidence;
        if (i % 4 == 1) {
            evidence.assign(net.numVariables(), UINT32_MAX);
            evidence[rng() % net.numVariables()] = 0;
        }
        auto p = buildBucketProgram(net, minFillOrder(net), {i % 3 != 0, evidence});
        if (!p) // no Catch here: the build-time helper calls this too
            throw std::runtime_error(p.error().str());
        programs.push_back(std::move(*p));
    }
    return programs;
}

// Row groups on every table (no size or stride threshold), of at most 2..8 rows; no shared-memory
// staging (the host shim runs a block's threads one after another, without barriers); warp per row
// only for eliminated spaces of 64 or more, so that most ops run a thread per row or per group.
inline cuda::TensorKernelOptions hostKernelOptions(int program) {
    cuda::TensorKernelOptions o;
    o.rowGroupMinRows = 0;
    o.rowGroupMinStride = 1;
    o.rowGroupMaxSize = 2 + program % 7;
    o.sharedInputMaxEntries = 0;
    o.warpRowThreshold = 64;
    return o;
}

} // namespace zbddc::testing
