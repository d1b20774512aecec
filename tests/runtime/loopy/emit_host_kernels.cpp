// Build-time helper of loopy_kernels_host_test: writes the loopy BP kernels generated for the
// test's grid (one design forced) as C++ the host compiles against tests/support/cuda_host_shim.h:
// `extern "C"` and `#pragma unroll` dropped, the dynamic shared array taken from the shim.
//   emit_host_kernels dp|coop OUT.inc
#include "backends/cuda/loopy_kernels.h"
#include "compiler/loopy/loopy_design.h"
#include "tests/runtime/loopy/host_kernel_grid.h"

#include <fstream>
#include <regex>
#include <string>

using namespace zbddc;

int main(int argc, char **argv) {
    if (argc != 3)
        return 2;
    const LoopyGpuDesign design =
        std::string(argv[1]) == "coop" ? LoopyGpuDesign::Cooperative : LoopyGpuDesign::DataParallel;
    const FactorGraph g = hostKernelGrid();
    std::string src = cuda::loopyKernelSource(planLoopyGpu(g, kHostKernelBatch, &design));
    src = std::regex_replace(src, std::regex("extern __shared__ double shared\\[\\];"),
                             "double *shared = emuShared;");
    src = std::regex_replace(src, std::regex("#pragma unroll"), "");
    src = std::regex_replace(src, std::regex("extern \"C\" "), "");
    std::ofstream(argv[2]) << src;
    return 0;
}
