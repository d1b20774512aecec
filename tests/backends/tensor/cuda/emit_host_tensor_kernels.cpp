// Build-time helper of tensor_kernels_host_test: writes the tensor kernels generated for the
// test's programs (host_kernel_programs.h) as C++ the host compiles against
// tests/support/cuda_host_shim.h — each program's source in its own namespace, `extern "C"` and
// `#pragma unroll` dropped — and a table of each program's op kernels. A generic kernel
// (generic_tensor_kernels.h) is called through a wrapper of the common signature that passes the
// op's shape words, as the GPU launch does (op_launch.cpp).
//   emit_host_tensor_kernels OUT.inc
#include "backends/tensor/cuda/generic_tensor_kernels.h"
#include "tests/backends/tensor/cuda/host_kernel_programs.h"

#include <fstream>
#include <regex>

using namespace zbddc;

namespace {

// Namespace `space` with the kernels of program `p` and their table `ops`.
void writeProgram(std::ofstream &out, const std::string &space, const TensorProgram &p,
                  const cuda::TensorKernelOptions &options) {
    std::string src = cuda::tensorKernelPrelude(p, options);
    for (uint32_t o = 0; o < p.ops.size(); ++o) {
        const bool generic = cuda::usesGenericKernel(p, o, options);
        const std::string name = cuda::tensorKernelName(o);
        src += cuda::tensorKernelText(p, o, options, generic ? name + "_generic" : name);
        if (!generic)
            continue;
        const std::vector<uint32_t> words = cuda::genericKernelShape(p, o);
        src += "void " + name + "(const zb_val *const *in, zb_val *out, u64 begin, u64 count) {\n" +
               "    " + name + "_generic(in, out, begin, count, zb_shape<" +
               std::to_string(words.size()) + ">{{";
        for (size_t i = 0; i < words.size(); ++i)
            src += (i ? ", " : "") + std::to_string(words[i]) + "u";
        src += "}});\n}\n";
    }
    src = std::regex_replace(src, std::regex("#pragma unroll[^\\n]*"), "");
    src = std::regex_replace(src, std::regex("extern \"C\" "), "");
    src = std::regex_replace(src, std::regex("#define (ZB_[A-Z]+)"), "#undef $1\n#define $1");
    out << "namespace " << space << " {\n" << src << "\ninline Kernel *const ops[] = {";
    for (size_t o = 0; o < p.ops.size(); ++o)
        out << (o ? ", " : "") << cuda::tensorKernelName(static_cast<uint32_t>(o));
    out << "};\n} // namespace " << space << "\n";
}

// `inline Kernel *const *const NAME[] = {PREFIX0::ops, ...};`
void writeTable(std::ofstream &out, const char *name, const char *prefix, size_t count) {
    out << "inline Kernel *const *const " << name << "[] = {";
    for (size_t i = 0; i < count; ++i)
        out << (i ? ", " : "") << prefix << i << "::ops";
    out << "};\n";
}

} // namespace

int main(int argc, char **argv) {
    if (argc != 2)
        return 2;
    std::ofstream out(argv[1]);
    const std::vector<TensorProgram> programs = testing::hostKernelPrograms();
    for (size_t i = 0; i < programs.size(); ++i)
        writeProgram(out, "program" + std::to_string(i), programs[i],
                     testing::hostKernelOptions(static_cast<int>(i)));
    writeTable(out, "programOps", "program", programs.size());
    // The generic kernels' programs, each op specialised and each op generic.
    const std::vector<TensorProgram> generic = testing::hostGenericPrograms();
    for (size_t i = 0; i < generic.size(); ++i) {
        writeProgram(out, "special" + std::to_string(i), generic[i],
                     testing::hostGenericOptions(false));
        writeProgram(out, "generic" + std::to_string(i), generic[i],
                     testing::hostGenericOptions(true));
    }
    writeTable(out, "specialOps", "special", generic.size());
    writeTable(out, "genericOps", "generic", generic.size());
    return out.good() ? 0 : 1;
}
