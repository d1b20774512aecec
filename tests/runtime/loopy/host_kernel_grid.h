// The model whose generated kernels loopy_kernels_host_test runs on the host: a 4x4 Potts grid,
// 9 labels (fields of 9 entries, pairs of 81: both cooperative block sizes differ), 3 instances.
#pragma once

#include "tests/support/synthetic_factor_graphs.h"

namespace zbddc {

inline constexpr uint32_t kHostKernelBatch = 3;
inline FactorGraph hostKernelGrid() {
    return testing::pairwiseGrid(4, 9, 0.5, 3);
}

} // namespace zbddc
