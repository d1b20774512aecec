// Build-time helper of tensor_kernels_host_test: writes the tensor kernels generated for the
// test's programs (host_kernel_programs.h) as C++ the host compiles against
// tests/support/cuda_host_shim.h — each program's source in its own namespace, `extern "C"` and
// `#pragma unroll` dropped — and a table of each program's op kernels. A generic kernel
// (generic_tensor_kernels.h) is called through a wrapper of the common signature that passes the
// op's shape words, as the GPU launch does (op_launch.cpp), and its fused entry point through one
// over a descriptor array (fused_launch.h), with the family each generic op belongs to.
//   emit_host_tensor_kernels OUT.inc
#include "backends/tensor/cuda/codegen/generic_tensor_kernels.h"
#include "tests/backends/tensor/cuda/host_kernel_programs.h"

#include <algorithm>
#include <fstream>
#include <regex>

using namespace zbddc;

namespace {

// Namespace `space` with the kernels of program `p` and their table `ops`.
void writeProgram(std::ofstream &out, const std::string &space, const TensorProgram &p,
                  const cuda::TensorKernelOptions &options) {
    std::string src = cuda::tensorKernelPrelude(p, options);
    std::vector<std::string> fusedNames(p.ops.size(), "nullptr"), families;
    std::vector<int> familyOf(p.ops.size(), -1); // by op: its generic text's index
    for (uint32_t o = 0; o < p.ops.size(); ++o) {
        const bool generic = cuda::usesGenericKernel(p, o, options);
        const std::string name = testing::opKernelName(o);
        src += cuda::tensorKernelText(p, o, options, generic ? name + "_generic" : name);
        if (!generic)
            continue;
        const std::string text = cuda::genericKernelText(p, o, options, "k");
        familyOf[o] =
            static_cast<int>(std::find(families.begin(), families.end(), text) - families.begin());
        if (familyOf[o] == static_cast<int>(families.size()))
            families.push_back(text);
        const std::vector<uint32_t> words = cuda::genericKernelShape(p, o);
        const std::string shape = "zb_shape<" + std::to_string(words.size()) + ">";
        src += "void " + name + "(const zb_val *const *in, zb_val *out, u64 begin, u64 count) {\n" +
               "    " + name + "_generic(in, out, begin, count, " + shape + "{{";
        for (size_t i = 0; i < words.size(); ++i)
            src += (i ? ", " : "") + std::to_string(words[i]) + "u";
        src += "}});\n}\n";
        if (!options.fusedEntries)
            continue;
        // The fused entry point over a descriptor array as the device gets it.
        fusedNames[o] = name + "_fused";
        src += "void " + fusedNames[o] + "(const unsigned char *ops) {\n    " + name +
               "_generic_fused(reinterpret_cast<const zb_fused_op<" + std::to_string(words.size()) +
               "> *>(ops));\n}\n";
    }
    src = std::regex_replace(src, std::regex("#pragma unroll[^\\n]*"), "");
    src = std::regex_replace(src, std::regex("extern \"C\" "), "");
    src = std::regex_replace(src, std::regex("#define (ZB_[A-Z]+)"), "#undef $1\n#define $1");
    out << "namespace " << space << " {\n" << src << "\ninline Kernel *const ops[] = {";
    for (size_t o = 0; o < p.ops.size(); ++o)
        out << (o ? ", " : "") << testing::opKernelName(static_cast<uint32_t>(o));
    out << "};\ninline FusedKernel *const fused[] = {";
    for (size_t o = 0; o < p.ops.size(); ++o)
        out << (o ? ", " : "") << fusedNames[o];
    out << "};\ninline const int family[] = {";
    for (size_t o = 0; o < p.ops.size(); ++o)
        out << (o ? ", " : "") << familyOf[o];
    out << "};\n} // namespace " << space << "\n";
}

// `inline ELEMENT const NAME[] = {PREFIX0::MEMBER, ...};`
void writeTable(std::ofstream &out, const char *name, const char *prefix, size_t count,
                const char *member = "ops", const char *element = "Kernel *const *") {
    out << "inline " << element << " const " << name << "[] = {";
    for (size_t i = 0; i < count; ++i)
        out << (i ? ", " : "") << prefix << i << "::" << member;
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
    writeTable(out, "genericFused", "generic", generic.size(), "fused", "FusedKernel *const *");
    writeTable(out, "genericFamily", "generic", generic.size(), "family", "const int *");
    return out.good() ? 0 : 1;
}
