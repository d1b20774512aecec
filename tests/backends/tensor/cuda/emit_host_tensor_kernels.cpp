// Build-time helper of tensor_kernels_host_test: writes the tensor kernels generated for the
// test's programs (host_kernel_programs.h) as C++ the host compiles against
// tests/support/cuda_host_shim.h — each program's source in its own namespace, `extern "C"` and
// `#pragma unroll` dropped — and a table of each program's op kernels.
//   emit_host_tensor_kernels OUT.inc
#include "tests/backends/tensor/cuda/host_kernel_programs.h"

#include <fstream>
#include <regex>

using namespace zbddc;

int main(int argc, char **argv) {
    if (argc != 2)
        return 2;
    std::ofstream out(argv[1]);
    const std::vector<TensorProgram> programs = testing::hostKernelPrograms();
    for (size_t i = 0; i < programs.size(); ++i) {
        const TensorProgram &p = programs[i];
        std::string src = cuda::generateTensorProgramSource(
            p, testing::hostKernelOptions(static_cast<int>(i)));
        src = std::regex_replace(src, std::regex("#pragma unroll"), "");
        src = std::regex_replace(src, std::regex("extern \"C\" "), "");
        src = std::regex_replace(src, std::regex("#define (ZB_[A-Z]+)"), "#undef $1\n#define $1");
        out << "namespace program" << i << " {\n" << src << "\ninline Kernel *const ops[] = {";
        for (size_t o = 0; o < p.ops.size(); ++o)
            out << (o ? ", " : "") << cuda::tensorKernelName(static_cast<uint32_t>(o));
        out << "};\n} // namespace program" << i << "\n";
    }
    out << "inline Kernel *const *const programOps[] = {";
    for (size_t i = 0; i < programs.size(); ++i)
        out << (i ? ", " : "") << "program" << i << "::ops";
    out << "};\n";
    return out.good() ? 0 : 1;
}
