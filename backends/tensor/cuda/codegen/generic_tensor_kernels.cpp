#include "backends/tensor/cuda/codegen/generic_tensor_kernels.h"

#include <algorithm>
#include <sstream>

namespace zbddc::cuda {

namespace {

constexpr uint64_t kI32Max = 0x7fffffffull; // zb_div's dividends
// Shape words at most: kernel arguments hold 4 KiB, and a family per rank up to this covers the
// small ops of every benchmark network.
constexpr size_t kMaxShapeWords = 512;

// The family of an op: what its generic kernel's text depends on.
struct Family {
    size_t inputs = 0, rank = 0, eliminated = 0;
    bool warp = false, inverseMax = false;

    // Where the generic kernel finds each word (genericKernelShape's order); a domain is three
    // words, its size and its divider (kDividerWords).
    size_t outDomain(size_t i) const { return 3 * i; }
    size_t elimDomain(size_t i) const { return 3 * (rank + i); }
    size_t inputBlock(size_t j) const {
        return 3 * (rank + eliminated) + j * (1 + rank + eliminated);
    }
    size_t base(size_t j) const { return inputBlock(j); }
    size_t outStride(size_t j, size_t i) const { return inputBlock(j) + 1 + i; }
    size_t elimStride(size_t j, size_t i) const { return inputBlock(j) + 1 + rank + i; }
    size_t space() const { return inputBlock(inputs); }
    size_t words() const { return space() + 1; }
};

Family familyOf(const TensorProgram &p, uint32_t opId, const TensorKernelOptions &options) {
    const TensorOp &op = p.ops[opId];
    Family f;
    f.inputs = op.inputs.size();
    f.rank = p.tables[op.output].scope.size();
    f.eliminated = reducesVariables(op.kind) ? op.vars.size() : 0;
    f.warp = usesWarpPerRow(p, opId, options);
    f.inverseMax = op.kind == TensorOpKind::InverseMax;
    return f;
}

std::string word(size_t i) {
    return "shape.w[" + std::to_string(i) + "]";
}

// `value / domain` and `value % domain` of the domain whose words start at `at`, as code.
std::string quotient(const std::string &value, size_t at) {
    return "zb_div(" + value + ", " + word(at + 1) + ", " + word(at + 2) + ")";
}

// Emits the digits `<digit><i>` of `value` (consumed) over the domains `domainAt(i)`, i in
// [0, count), last fastest; the first needs no remainder.
template <class DomainAt>
void emitDigits(std::ostringstream &o, const std::string &indent, const std::string &value,
                const char *digit, size_t count, DomainAt domainAt) {
    for (size_t i = count; i-- > 0;) {
        o << indent << "const unsigned " << digit << i << " = ";
        if (i == 0) {
            o << value << ";\n";
            continue;
        }
        const size_t at = domainAt(i);
        o << value << " - " << word(at) << " * (" << value << "q = " << quotient(value, at) << "); "
          << value << " = " << value << "q;\n";
    }
}

} // namespace

bool usesGenericKernel(const TensorProgram &p, uint32_t opId, const TensorKernelOptions &options) {
    const TensorOp &op = p.ops[opId];
    const Table &out = p.tables[op.output];
    const uint64_t m = eliminatedValues(p, op);
    if (options.eliminationRange || m > kI32Max ||
        out.entries() > kI32Max || familyOf(p, opId, options).words() > kMaxShapeWords)
        return false;
    for (uint32_t in : op.inputs)
        if (p.tables[in].entries() > kI32Max)
            return false;
    // Within the limit (no overflow: both factors are below 2^31).
    return out.entries() * m <= options.genericMaxWork && rowGroupOf(p, opId, options).rows() == 1;
}

uint64_t genericFamilyKey(const TensorProgram &p, uint32_t opId,
                          const TensorKernelOptions &options) {
    const Family f = familyOf(p, opId, options); // each count below kMaxShapeWords
    return uint64_t{f.inputs} | uint64_t{f.rank} << 16 | uint64_t{f.eliminated} << 32 |
           uint64_t{f.warp} << 48 | uint64_t{f.inverseMax} << 49;
}

std::string genericKernelPrelude() {
    // zb_div: n / d for n < 2^31 as a multiply-high, an add and a shift (genericDivider's words),
    // with no branch, where a division by a run-time value would take some twenty instructions.
    return "template <int N> struct zb_shape { unsigned w[N]; }; // generic kernels' argument\n"
           "template <int N> struct zb_fused_op { // an op of a fused launch "
           "(appendFusedOpDescriptor)\n"
           "    const zb_val *const *inputs; zb_val *out; u64 rows; zb_shape<N> shape;\n};\n"
           "__device__ __forceinline__ unsigned zb_div(unsigned n, unsigned mul, unsigned shr) {\n"
           "    return (__umulhi(n, mul) + n) >> shr;\n}\n";
}

GenericDivider genericDivider(uint32_t d) {
    // Granlund and Montgomery 1994 §4 (Fig. 4.1): with l = ceil(log2 d) and
    // mul = floor(2^32 (2^l - d) / d) + 1 < 2^32, floor(n / d) = (mulhi(n, mul) + n) >> l; the sum
    // does not overflow for n < 2^31. d = 1 and powers of two give mul = 1, whose high word is 0.
    uint32_t l = 0;
    while ((uint64_t{1} << l) < d)
        ++l;
    const uint64_t mul = (uint64_t{1} << 32) * ((uint64_t{1} << l) - d) / d + 1;
    return {static_cast<uint32_t>(mul), l};
}

std::string genericKernelText(const TensorProgram &p, uint32_t opId,
                              const TensorKernelOptions &options, std::string_view name) {
    const Family f = familyOf(p, opId, options);
    std::ostringstream o;
    o << "\n// generic: " << f.inputs << " inputs, rank " << f.rank << ", " << f.eliminated
      << " eliminated" << (f.inverseMax ? ", inverse max" : "")
      << (f.warp ? ", warp per row" : ", thread per row") << "\n";
    // The body, over the blocks `block` of `blocks`: the kernel's own grid, or its share of a
    // fused launch's (one op per blockIdx.y).
    o << "__device__ __forceinline__ void " << name
      << "_body(const zb_val *const *inputs, zb_val *out, u64 rowBegin, u64 rowCount, const "
         "zb_shape<"
      << f.words() << "> &shape, unsigned block, unsigned blocks) {\n";
    for (size_t j = 0; j < f.inputs; ++j)
        o << "    const zb_val *__restrict__ in" << j << " = inputs[" << j << "];\n";
    if (f.warp) {
        o << "    const unsigned lane = threadIdx.x & 31u;\n";
        o << "    const u64 step = (u64)blocks * (blockDim.x / 32u);\n";
        o << "    for (u64 r = ((u64)block * blockDim.x + threadIdx.x) / 32u; r < rowCount; "
             "r += step) {\n";
    } else {
        o << "    const u64 step = (u64)blocks * blockDim.x;\n";
        o << "    for (u64 r = (u64)block * blockDim.x + threadIdx.x; r < rowCount; "
             "r += step) {\n";
    }
    if (f.rank)
        o << "        unsigned rest = (unsigned)(rowBegin + r)" << (f.rank > 1 ? ", restq" : "")
          << ";\n";
    emitDigits(o, "        ", "rest", "d", f.rank, [&](size_t i) { return f.outDomain(i); });
    for (size_t j = 0; j < f.inputs; ++j) {
        o << "        const unsigned off" << j << " = " << word(f.base(j));
        for (size_t i = 0; i < f.rank; ++i)
            o << " + d" << i << " * " << word(f.outStride(j, i));
        o << ";\n";
    }
    const char *plus = f.inverseMax ? "fmax" : "zb_plus";
    o << "        zb_val acc = " << (f.inverseMax ? "0.0" : "ZB_ZERO") << ";\n";
    // The eliminated values in a loop NVRTC may not unroll: its trip count is a run-time word, and
    // a runtime-unrolled copy of the body per kernel doubles the assembler's time for little gain
    // on ops this small. No eliminated variable: one value, no loop.
    if (f.eliminated)
        o << "        #pragma unroll 1\n"
          << "        for (unsigned e = " << (f.warp ? "lane" : "0u") << "; e < " << word(f.space())
          << "; e += " << (f.warp ? "32u" : "1u") << ") {\n";
    else
        o << "        {\n";
    if (f.eliminated)
        o << "            unsigned er = e" << (f.eliminated > 1 ? ", erq" : "") << ";\n";
    emitDigits(o, "            ", "er", "ed", f.eliminated,
               [&](size_t i) { return f.elimDomain(i); });
    o << "            zb_val v = ZB_ONE;\n";
    for (size_t j = 0; j < f.inputs; ++j) {
        o << "            v = zb_times(v, in" << j << "[off" << j;
        for (size_t i = 0; i < f.eliminated; ++i)
            o << " + ed" << i << " * " << word(f.elimStride(j, i));
        o << "]);\n";
    }
    // As the specialised kernel: one eliminated value is the value itself, with no ⊕ against ZERO.
    o << "            acc = " << (f.eliminated ? std::string(plus) + "(acc, v)" : "v") << ";\n";
    o << "        }\n";
    if (f.warp) {
        o << "        for (int s = 16; s > 0; s >>= 1) acc = " << plus
          << "(acc, __shfl_xor_sync(0xffffffffu, acc, s));\n";
        o << "        if (lane == 0) ";
    } else {
        o << "        ";
    }
    o << "out[r] = " << (f.inverseMax ? "(acc > 0.0 ? 1.0 / acc : 1.0)" : "acc") << ";\n";
    o << "    }\n}\n";
    const std::string bounds = "__launch_bounds__(" + std::to_string(options.blockThreads) + ") ";
    o << "extern \"C\" __global__ void " << bounds << name
      << "(const zb_val *const *inputs, zb_val *out, u64 rowBegin, u64 rowCount, const zb_shape<"
      << f.words() << "> shape) {\n";
    o << "    " << name
      << "_body(inputs, out, rowBegin, rowCount, shape, blockIdx.x, gridDim.x);\n}\n";
    if (!options.fusedEntries)
        return o.str();
    o << "extern \"C\" __global__ void " << bounds << name << kFusedKernelSuffix
      << "(const zb_fused_op<" << f.words() << "> *ops) {\n";
    o << "    const zb_fused_op<" << f.words() << "> &op = ops[blockIdx.y];\n";
    o << "    " << name
      << "_body(op.inputs, op.out, 0, op.rows, op.shape, blockIdx.x, gridDim.x);\n}\n";
    return o.str();
}

void appendFusedOpDescriptor(std::vector<unsigned char> &to, uint64_t inputs, uint64_t out,
                             uint64_t rows, std::span<const uint32_t> shape) {
    auto append = [&to](const void *bytes, size_t n) {
        const auto *b = static_cast<const unsigned char *>(bytes);
        to.insert(to.end(), b, b + n);
    };
    append(&inputs, sizeof inputs);
    append(&out, sizeof out);
    append(&rows, sizeof rows);
    append(shape.data(), shape.size_bytes());
    to.resize((to.size() + 7) / 8 * 8); // the struct's alignment: its pointers'
}

std::vector<uint32_t> genericKernelShape(const TensorProgram &p, uint32_t opId) {
    const TensorOp &op = p.ops[opId];
    const Table &out = p.tables[op.output];
    const size_t eliminated = reducesVariables(op.kind) ? op.vars.size() : 0;
    std::vector<uint32_t> w;
    auto domain = [&](uint32_t d) {
        const GenericDivider div = genericDivider(d);
        w.insert(w.end(), {d, div.mul, div.shift});
    };
    for (uint32_t d : out.domains)
        domain(d);
    for (size_t i = 0; i < eliminated; ++i)
        domain(p.domainSizes[op.vars[i]]);
    for (uint32_t in : op.inputs) {
        const Table &t = p.tables[in];
        auto strideOf = [&](uint32_t v) { return static_cast<uint32_t>(variableStride(t, v)); };
        uint64_t base = 0; // a slice's fixed values
        if (op.kind == TensorOpKind::SliceEvidence)
            for (size_t i = 0; i < op.vars.size(); ++i)
                base += uint64_t{op.values[i]} * strideOf(op.vars[i]);
        w.push_back(static_cast<uint32_t>(base));
        for (uint32_t v : out.scope)
            w.push_back(strideOf(v));
        for (size_t i = 0; i < eliminated; ++i)
            w.push_back(strideOf(op.vars[i]));
    }
    w.push_back(static_cast<uint32_t>(eliminatedValues(p, op)));
    return w;
}

} // namespace zbddc::cuda
