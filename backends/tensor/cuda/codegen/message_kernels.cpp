#include "backends/tensor/cuda/codegen/message_kernels.h"
#include "backends/tensor/cuda/codegen/tensor_kernels.h"

#include <algorithm>
#include <sstream>
#include <vector>

namespace zbddc::cuda {

namespace {

bool holds(const std::vector<uint32_t> &s, uint32_t v) {
    return std::find(s.begin(), s.end(), v) != s.end();
}

// How a kernel reads one input for an output row: its stride per output variable (0 for the
// normalised ones: they are walked), and the offset of each joint value of the walked variables.
struct Access {
    std::vector<uint64_t> outStride;
    std::vector<uint64_t> walk;
    bool operator==(const Access &) const = default;
};

Access accessOf(const TensorProgram &p, const Table &out, uint32_t table,
                const std::vector<uint32_t> &walked) {
    Access a;
    const Table &t = p.tables[table];
    for (uint32_t v : out.scope)
        a.outStride.push_back(holds(walked, v) ? 0 : variableStride(t, v));
    a.walk = {0};
    for (uint32_t v : walked) {
        std::vector<uint64_t> next;
        for (uint64_t off : a.walk)
            for (uint32_t x = 0; x < p.domainSizes[v]; ++x)
                next.push_back(off + x * variableStride(t, v));
        a.walk = std::move(next);
    }
    return a;
}

// The output row's digits d0.. (scope order) from rowBegin + r.
void emitDigits(std::ostringstream &o, const Table &out, const char *indent) {
    if (out.scope.empty())
        return;
    o << indent << "u64 rest = rowBegin + r;\n";
    for (size_t i = out.scope.size(); i-- > 0;) {
        o << indent << "const u64 d" << i << " = rest % " << out.domains[i] << "ull;";
        o << " rest /= " << out.domains[i] << "ull;\n";
    }
}

std::string baseExpr(const Access &a) {
    std::string s = "0ull";
    for (size_t i = 0; i < a.outStride.size(); ++i)
        if (a.outStride[i])
            s += " + d" + std::to_string(i) + " * " + std::to_string(a.outStride[i]) + "ull";
    return s;
}

// A constant array of a walk's offsets, named `name`.
void emitWalk(std::ostringstream &o, const std::vector<uint64_t> &walk, const std::string &name,
              const char *indent) {
    o << indent << "const u64 " << name << "[" << walk.size() << "] = {";
    for (size_t e = 0; e < walk.size(); ++e)
        o << (e ? ", " : "") << walk[e] << "ull";
    o << "};\n";
}

void emitDamp(std::ostringstream &o, const TensorProgram &p, const TensorOp &op,
              const std::string &damp) {
    const Table &out = p.tables[op.output];
    const Access fresh = accessOf(p, out, op.inputs[0], op.vars);
    const Access old = accessOf(p, out, op.inputs[1], op.vars);
    const Access weight = accessOf(p, out, op.inputs[2], {});
    const size_t m = fresh.walk.size();
    o << "    const u64 step = (u64)gridDim.x * blockDim.x;\n";
    o << "    for (u64 r = (u64)blockIdx.x * blockDim.x + threadIdx.x; r < rowCount; r += step) {\n";
    emitDigits(o, out, "        ");
    emitWalk(o, fresh.walk, "wf", "        ");
    emitWalk(o, old.walk, "wo", "        ");
    o << "        const zb_val *f = inputs[0] + (" << baseExpr(fresh) << ");\n";
    o << "        const zb_val *b = inputs[1] + (" << baseExpr(old) << ");\n";
    o << "        const double w = inputs[2][" << baseExpr(weight) << "];\n";
    std::string own = "0ull";
    for (uint32_t v : op.vars) {
        const size_t i = std::find(out.scope.begin(), out.scope.end(), v) - out.scope.begin();
        own = "(" + own + ") * " + std::to_string(out.domains[i]) + "ull + d" + std::to_string(i);
    }
    o << "        const u64 own = " << own << ";\n";
    o << "        zb_val fs = 0.0, total = 0.0, mine = 0.0;\n";
    o << "        for (unsigned e = 0; e < " << m << "u; ++e) fs = zb_plus(fs, f[wf[e]]);\n";
    o << "        for (unsigned e = 0; e < " << m << "u; ++e) {\n";
    o << "            const zb_val v = " << damp << "(fs > 0.0 ? f[wf[e]] / fs : 0.0, b[wo[e]], w);\n";
    o << "            total = zb_plus(total, v);\n";
    o << "            if (e == own) mine = v;\n        }\n";
    o << "        out[r] = total > 0.0 ? mine / total : 0.0;\n    }\n";
}

void emitResidual(std::ostringstream &o, const TensorProgram &p, const TensorOp &op,
                  const std::string &distance) {
    const Table &out = p.tables[op.output];
    // Runs of consecutive pairs that read alike.
    struct Run {
        Access a, b;
        size_t first = 0, last = 0;
    };
    std::vector<Run> runs;
    for (size_t k = 0; k < op.inputs.size(); k += 2) {
        const std::vector<uint32_t> inner = residualPairVariables(p, op, k / 2);
        Access a = accessOf(p, out, op.inputs[k], inner);
        Access b = accessOf(p, out, op.inputs[k + 1], inner);
        if (!runs.empty() && runs.back().a == a && runs.back().b == b)
            runs.back().last = k / 2 + 1;
        else
            runs.push_back({std::move(a), std::move(b), k / 2, k / 2 + 1});
    }
    o << "    const unsigned lane = threadIdx.x & 31u;\n";
    o << "    const u64 step = (u64)gridDim.x * (blockDim.x / 32u);\n";
    o << "    for (u64 r = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32u; r < rowCount; "
         "r += step) {\n";
    emitDigits(o, out, "        ");
    o << "        double worst = 0.0;\n";
    for (size_t i = 0; i < runs.size(); ++i) {
        const Run &run = runs[i];
        const std::string n = std::to_string(i);
        o << "        {\n";
        emitWalk(o, run.a.walk, "wa", "            ");
        emitWalk(o, run.b.walk, "wb", "            ");
        o << "            for (u64 k = " << run.first << "ull + lane; k < " << run.last
          << "ull; k += 32u) {\n";
        o << "                const zb_val *a = inputs[2 * k] + (" << baseExpr(run.a) << ");\n";
        o << "                const zb_val *b = inputs[2 * k + 1] + (" << baseExpr(run.b)
          << ");\n";
        o << "                zb_val sa = 0.0, sb = 0.0;\n";
        o << "                for (unsigned e = 0; e < " << run.a.walk.size()
          << "u; ++e) { sa = zb_plus(sa, a[wa[e]]); sb = zb_plus(sb, b[wb[e]]); }\n";
        o << "                for (unsigned e = 0; e < " << run.a.walk.size() << "u; ++e)\n";
        o << "                    worst = fmax(worst, " << distance
          << "(sa > 0.0 ? a[wa[e]] / sa : 0.0, sb > 0.0 ? b[wb[e]] / sb : 0.0));\n";
        o << "            }\n        }\n";
    }
    o << "        for (int s = 16; s > 0; s >>= 1) worst = fmax(worst, "
         "__shfl_xor_sync(0xffffffffu, worst, s));\n";
    o << "        if (lane == 0) out[r] = worst;\n    }\n";
}

} // namespace

std::string messageKernelText(const TensorProgram &p, uint32_t opId, std::string_view name,
                              unsigned blockThreads) {
    const TensorOp &op = p.ops[opId];
    const bool logDistance = p.semiring == Semiring::MaxProduct;
    std::ostringstream o;
    o << "\n// " << tensorOpKindName(op.kind) << ", " << op.inputs.size() << " inputs, "
      << p.tables[op.output].entries() << " rows\n";
    // tensor_program.cpp's dampedEntry and messageDistance, named after the kernel: a module holds
    // several message kernels.
    const std::string damp = std::string(name) + "_damp", distance = std::string(name) + "_distance";
    o << "static __device__ __forceinline__ double " << damp << "(double n, double o, double w) {\n"
         "    if (w == 0.0) return n;\n    if (w == 1.0) return o;\n"
         "    return n == 0.0 || o == 0.0 ? 0.0 : pow(n, 1.0 - w) * pow(o, w);\n}\n";
    o << "static __device__ __forceinline__ double " << distance << "(double p, double q) {\n";
    if (logDistance)
        o << "    if (p == 0.0 || q == 0.0) return p == q ? 0.0 : "
             "__longlong_as_double(0x7ff0000000000000ULL);\n"
             "    return fabs(log(p) - log(q));\n}\n";
    else
        o << "    return fabs(p - q);\n}\n";
    o << "extern \"C\" __global__ void __launch_bounds__(" << blockThreads << ") " << name
      << "(const zb_val *const *inputs, zb_val *out, u64 rowBegin, u64 rowCount) {\n";
    if (op.kind == TensorOpKind::DampMessage)
        emitDamp(o, p, op, damp);
    else
        emitResidual(o, p, op, distance);
    o << "}\n";
    return o.str();
}

} // namespace zbddc::cuda
