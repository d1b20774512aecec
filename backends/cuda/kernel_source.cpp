#include "backends/cuda/kernel_source.h"

#include <sstream>

namespace zbddc::cuda {

std::string KernelShape::describe() const {
    return std::string(semiringName(semiring)) + (float64 ? " float64" : " float32") +
           (logSpace ? " log" : " linear") + " B=" + std::to_string(batch) +
           " block=" + std::to_string(blockThreads) + " types=" + std::to_string(typeCode.size());
}

namespace {

// The semiring's scalar arithmetic on the representation in use, as device functions. Mirrors
// ir/interpret.cpp's Arith so the oracle and the kernels agree by construction of the same rules.
std::string arithmetic(const KernelShape &s) {
    const bool f = !s.float64;
    const std::string T = f ? "float" : "double";
    const std::string inf = f ? "__int_as_float(0x7f800000)" : "__longlong_as_double(0x7ff0000000000000LL)";
    const std::string sfx = f ? "f" : "";
    const bool product = s.semiring == Semiring::SumProduct || s.semiring == Semiring::MaxProduct;
    std::string zero, one, plus, times;
    if (s.logSpace) {
        zero = "-" + inf;
        one = "0";
        times = "return p + q;";
        if (s.semiring == Semiring::SumProduct)
            plus = "T hi = fmax" + sfx + "(p, q), lo = fmin" + sfx + "(p, q);\n"
                   "    if (lo == -" + inf + ") return hi;\n"
                   "    return hi + log1p" + sfx + "(exp" + sfx + "(lo - hi));";
        else
            plus = "return fmax" + sfx + "(p, q);";
    } else {
        zero = s.semiring == Semiring::MaxSum ? "-" + inf
               : s.semiring == Semiring::MinSum ? inf
                                                : "0";
        one = product ? "1" : "0";
        times = product ? "return p * q;" : "return p + q;";
        plus = s.semiring == Semiring::SumProduct ? "return p + q;"
               : s.semiring == Semiring::MinSum   ? "return fmin" + sfx + "(p, q);"
                                                  : "return fmax" + sfx + "(p, q);";
    }
    std::ostringstream o;
    o << "typedef " << T << " T;\n"
      << "__device__ __forceinline__ T zb_zero() { return " << zero << "; }\n"
      << "__device__ __forceinline__ T zb_one() { return " << one << "; }\n"
      << "__device__ __forceinline__ T zb_plus(T p, T q) {\n    " << plus << "\n}\n"
      << "__device__ __forceinline__ T zb_times(T p, T q) { " << times << " }\n";
    return o.str();
}

const char *kPrelude = R"CUDA(
typedef unsigned long long u64;
struct Plan {
    T *values;
    T *adjoints;
    const unsigned *opType, *opOut, *opOperandBegin, *operands;
    const unsigned *levelGroupBegin, *groupOpBegin, *groupType;
    const unsigned *edgeStart, *edgeOut, *edgeOperands, *edgeCode;
    unsigned *barrier; // arrival counter with a flip bit
    unsigned numOps, numInputs, inputBase, numLevels, outSlot;
};

// Values written by other blocks in an earlier level are read around L1 (which is not coherent
// across SMs); inside one block __syncthreads suffices and L1 may serve them.
template <bool GRID> __device__ __forceinline__ T zb_load(const T *p) {
    if (GRID) return __ldcg(p);
    return *p;
}

// Grid-wide barrier for a cooperative launch (all blocks resident). One counter word: every block
// adds 1 except block 0, which adds 2^31 - (blocks - 1), so the arrivals of one barrier sum to
// exactly 2^31: the top bit flips once all have arrived and the low bits return to what they were
// (0), whatever the grid size of this or the next launch. One atomic per block on the critical path.
__device__ __forceinline__ void zb_grid_barrier(unsigned *bar) {
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned add = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1) : 1u;
        __threadfence();
        const unsigned old = atomicAdd(bar, add);
        volatile unsigned *v = bar;
        while (((old ^ *v) & 0x80000000u) == 0) { }
        __threadfence();
    }
    __syncthreads();
}

__device__ __forceinline__ void zb_prefetch_l1(const void *p, unsigned bytes) {
    bytes = min(bytes, 32768u); // beyond L1's share, prefetching only evicts
    for (unsigned off = threadIdx.x * 128u; off < bytes; off += blockDim.x * 128u)
        asm volatile("prefetch.global.L1 [%0];" :: "l"((const char *)p + off));
}

)CUDA";

const char *kKernels = R"CUDA(
// Per-type device functions (generated above this text): zb_op<TYPE, GRID>(p, o, lane) evaluates
// an op of that type whose operand slots start at o; zb_coef<GRID>(p, type, pos, o, lane) is the
// op's partial derivative (best completion in max/min semirings) for operand `pos`.

// One group (one type) of one level: each of the ops × B work items is (op k, lane), lane
// fastest, so a warp reads and writes B consecutive values of a slot (coalesced) and shares the
// op's indices.
template <int TYPE, bool GRID>
__device__ __forceinline__ void zb_forward_ops(const Plan &p, unsigned k0, unsigned k1,
                                               unsigned operandBase, u64 t, u64 stride) {
    // Ops of one group are consecutive and of one arity, so op k's operands start at a computed
    // offset: no per-op lookup of opOperandBegin.
    const u64 work = (u64)(k1 - k0) * ZB_B;
    for (u64 w = t; w < work; w += stride) {
        const unsigned k = k0 + (unsigned)(w / ZB_B), lane = (unsigned)(w % ZB_B);
        const unsigned *o = p.operands + operandBase + (k - k0) * zb_arity<TYPE>();
        p.values[(u64)__ldg(p.opOut + k) * ZB_B + lane] = zb_op<TYPE, GRID>(p, o, lane);
    }
}

template <bool GRID>
__device__ __forceinline__ void zb_forward_level(const Plan &p, unsigned L, u64 t, u64 stride) {
    const unsigned g1 = __ldg(p.levelGroupBegin + L + 1);
    for (unsigned g = __ldg(p.levelGroupBegin + L); g < g1; ++g) {
        const unsigned k0 = __ldg(p.groupOpBegin + g);
        zb_forward_group<GRID>(p, __ldg(p.groupType + g), k0, __ldg(p.groupOpBegin + g + 1),
                               __ldg(p.opOperandBegin + k0), t, stride);
    }
}

// Backward step: the adjoint of each item is gathered from its readers' adjoints (written in
// earlier steps), in a fixed edge order: deterministic, no atomics.
template <bool GRID>
__device__ __forceinline__ void zb_backward_step(const Plan &p, unsigned step, u64 t, u64 stride) {
    unsigned i0, i1;
    if (step < p.numLevels) {
        const unsigned L = p.numLevels - 1 - step;
        i0 = __ldg(p.groupOpBegin + __ldg(p.levelGroupBegin + L));
        i1 = __ldg(p.groupOpBegin + __ldg(p.levelGroupBegin + L + 1));
    } else {
        i0 = p.numOps;
        i1 = p.numOps + p.numInputs;
    }
    const u64 work = (u64)(i1 - i0) * ZB_B;
    for (u64 w = t; w < work; w += stride) {
        const unsigned i = i0 + (unsigned)(w / ZB_B), lane = (unsigned)(w % ZB_B);
        const unsigned slot = i < p.numOps ? __ldg(p.opOut + i) : p.inputBase + (i - p.numOps);
        T acc = slot == p.outSlot ? zb_one() : zb_zero();
        const unsigned e1 = __ldg(p.edgeStart + i + 1);
        // Each edge carries its reader's adjoint slot, operand offset and (type, position) code,
        // so all of an edge's loads issue at once.
        for (unsigned e = __ldg(p.edgeStart + i); e < e1; ++e) {
            const T g = zb_load<GRID>(p.adjoints + (u64)__ldg(p.edgeOut + e) * ZB_B + lane);
            const unsigned *o = p.operands + __ldg(p.edgeOperands + e);
            acc = zb_plus(acc, zb_times(g, zb_coef<GRID>(p, __ldg(p.edgeCode + e), o, lane)));
        }
        p.adjoints[(u64)slot * ZB_B + lane] = acc;
    }
}

// Block segments walk many tiny levels: each chunk of levels has its group table staged in
// shared memory and its index arrays prefetched into L1, so a level's critical path is the
// operand and value loads.
#define ZB_STAGE_LEVELS 256
#define ZB_STAGE_GROUPS 2048
extern "C" __global__ void __launch_bounds__(ZB_BLOCK) zb_forward_block(Plan p, unsigned first, unsigned last) {
    __shared__ unsigned lg[ZB_STAGE_LEVELS + 1], gop[ZB_STAGE_GROUPS + 1], gty[ZB_STAGE_GROUPS],
        gopd[ZB_STAGE_GROUPS];
    for (unsigned c0 = first; c0 < last;) {
        unsigned c1 = min(last, c0 + ZB_STAGE_LEVELS);
        const unsigned gbase = p.levelGroupBegin[c0];
        while (c1 > c0 + 1 && p.levelGroupBegin[c1] - gbase > ZB_STAGE_GROUPS)
            c1 = c0 + (c1 - c0) / 2;
        const unsigned gend = p.levelGroupBegin[c1];
        const bool staged = gend - gbase <= ZB_STAGE_GROUPS;
        if (staged) {
            for (unsigned i = threadIdx.x; i <= c1 - c0; i += blockDim.x)
                lg[i] = p.levelGroupBegin[c0 + i] - gbase;
            for (unsigned i = threadIdx.x; i <= gend - gbase; i += blockDim.x) {
                const unsigned k = p.groupOpBegin[gbase + i];
                gop[i] = k;
                if (i < gend - gbase) {
                    gty[i] = p.groupType[gbase + i];
                    gopd[i] = p.opOperandBegin[k];
                }
            }
        }
        __syncthreads();
        const unsigned k0 = p.groupOpBegin[gbase], k1 = p.groupOpBegin[gend];
        zb_prefetch_l1(p.opOut + k0, 4 * (k1 - k0));
        zb_prefetch_l1(p.operands + p.opOperandBegin[k0], 4 * (p.opOperandBegin[k1] - p.opOperandBegin[k0]));
        for (unsigned L = c0; L < c1; ++L) {
            if (staged) {
                for (unsigned g = lg[L - c0]; g < lg[L - c0 + 1]; ++g)
                    zb_forward_group<false>(p, gty[g], gop[g], gop[g + 1], gopd[g], threadIdx.x, blockDim.x);
            } else {
                zb_forward_level<false>(p, L, threadIdx.x, blockDim.x);
            }
            __syncthreads();
        }
        c0 = c1;
    }
}

extern "C" __global__ void __launch_bounds__(ZB_BLOCK) zb_forward_grid(Plan p, unsigned first, unsigned last) {
    const u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x, stride = (u64)gridDim.x * blockDim.x;
    for (unsigned L = first; L < last; ++L) {
        zb_forward_level<true>(p, L, t, stride);
        if (L + 1 < last) zb_grid_barrier(p.barrier);
    }
}

extern "C" __global__ void __launch_bounds__(ZB_BLOCK) zb_backward_block(Plan p, unsigned first, unsigned last) {
    for (unsigned s = first; s < last; ++s) {
        zb_backward_step<false>(p, s, threadIdx.x, blockDim.x);
        __syncthreads();
    }
}

extern "C" __global__ void __launch_bounds__(ZB_BLOCK) zb_backward_grid(Plan p, unsigned first, unsigned last) {
    const u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x, stride = (u64)gridDim.x * blockDim.x;
    for (unsigned s = first; s < last; ++s) {
        zb_backward_step<true>(p, s, t, stride);
        if (s + 1 < last) zb_grid_barrier(p.barrier);
    }
}
)CUDA";

// A template as an expression tree (postfix → tree), for the forward expression and for each
// operand's partial derivative: the ⊗ of the sibling subtrees on the path from the root to that
// operand (⊕ passes the adjoint through). Every operand is a leaf used once, so this is exact in
// every semiring.
struct Tree {
    struct Node {
        int step = 0;         // TemplateStep
        int leaf = -1;        // operand position, for loads
        int left = -1, right = -1;
    };
    std::vector<Node> nodes;
    int root = -1;

    explicit Tree(const std::vector<uint32_t> &code) {
        std::vector<int> stack;
        int leaves = 0;
        for (uint32_t step : code) {
            Node n;
            n.step = static_cast<int>(step);
            if (step <= 1) {
                n.leaf = leaves++;
            } else {
                n.right = stack.back();
                stack.pop_back();
                n.left = stack.back();
                stack.pop_back();
            }
            nodes.push_back(n);
            stack.push_back(static_cast<int>(nodes.size()) - 1);
        }
        root = stack.empty() ? -1 : stack.back();
    }
    std::string expr(int i) const {
        const Node &n = nodes[i];
        if (n.leaf >= 0)
            return "V(" + std::to_string(n.leaf) + ")";
        return std::string(n.step == 2 ? "zb_times(" : "zb_plus(") + expr(n.left) + ", " +
               expr(n.right) + ")";
    }
    // Sibling factors on the path to `leaf`; false when the leaf is not under i.
    bool path(int i, int leaf, std::vector<std::string> &factors) const {
        const Node &n = nodes[i];
        if (n.leaf >= 0)
            return n.leaf == leaf;
        for (auto [here, other] : {std::pair{n.left, n.right}, {n.right, n.left}})
            if (path(here, leaf, factors)) {
                if (n.step == 2)
                    factors.push_back(expr(other));
                return true;
            }
        return false;
    }
    std::string coef(int leaf) const {
        std::vector<std::string> f;
        path(root, leaf, f);
        std::string e = "zb_one()";
        for (const std::string &x : f)
            e = e == "zb_one()" ? x : "zb_times(" + e + ", " + x + ")";
        return e;
    }
    int leaves() const {
        int n = 0;
        for (const Node &x : nodes)
            n += x.leaf >= 0;
        return n;
    }
};

std::string typeFunctions(const KernelShape &s) {
    std::ostringstream o;
    o << "#define V(j) zb_load<GRID>(p.values + (u64)__ldg(o + (j)) * ZB_B + lane)\n";
    o << "template <int TYPE, bool GRID>\n__device__ __forceinline__ T zb_op(const Plan &p, "
         "const unsigned *o, unsigned lane) {\n";
    for (size_t t = 0; t < s.typeCode.size(); ++t)
        o << "    " << (t ? "else " : "") << "if constexpr (TYPE == " << t << ") return "
          << Tree(s.typeCode[t]).expr(Tree(s.typeCode[t]).root) << ";\n";
    o << "    else return zb_zero();\n}\n";
    o << "template <bool GRID>\n__device__ __forceinline__ T zb_coef(const Plan &p, unsigned code, "
         "const unsigned *o, unsigned lane) {\n    switch (code) { // type * 64 + operand position\n";
    for (size_t t = 0; t < s.typeCode.size(); ++t) {
        const Tree tree(s.typeCode[t]);
        for (int j = 0; j < tree.leaves(); ++j)
            o << "    case " << t * 64 + j << ": return " << tree.coef(j) << ";\n";
    }
    o << "    default: return zb_zero();\n    }\n}\n";
    o << "template <int TYPE> __device__ __forceinline__ constexpr unsigned zb_arity() {\n";
    for (size_t t = 0; t < s.typeCode.size(); ++t)
        o << "    " << (t ? "else " : "") << "if constexpr (TYPE == " << t << ") return "
          << Tree(s.typeCode[t]).leaves() << ";\n";
    o << "    else return 0;\n}\n";
    o << "template <int TYPE, bool GRID>\n__device__ __forceinline__ void zb_forward_ops(const Plan &, "
         "unsigned, unsigned, unsigned, u64, u64);\n";
    o << "template <bool GRID>\n__device__ __forceinline__ void zb_forward_group(const Plan &p, "
         "unsigned type, unsigned k0, unsigned k1, unsigned operandBase, u64 t, u64 stride) {\n"
         "    switch (type) {\n";
    for (size_t t = 0; t < s.typeCode.size(); ++t)
        o << "    case " << t << ": zb_forward_ops<" << t
          << ", GRID>(p, k0, k1, operandBase, t, stride); break;\n";
    o << "    }\n}\n";
    return o.str();
}

} // namespace

std::string generateKernelSource(const KernelShape &s) {
    std::ostringstream o;
    o << "// zbddc generated kernels: " << s.describe() << "\n"
      << "#define ZB_B " << s.batch << "u\n"
      << "#define ZB_BLOCK " << s.blockThreads << "\n"
      << arithmetic(s) << kPrelude << typeFunctions(s) << kKernels;
    return o.str();
}

} // namespace zbddc::cuda
