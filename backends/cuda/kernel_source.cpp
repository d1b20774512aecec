#include "backends/cuda/kernel_source.h"

#include <sstream>

namespace zbddc::cuda {

std::string KernelShape::describe() const {
    return std::string(semiringName(semiring)) + (float64 ? " float64" : " float32") +
           (logSpace ? " log" : " linear") + " B=" + std::to_string(batch) +
           " block=" + std::to_string(blockThreads);
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

// Everything below is the same for every shape; B and the block size are folded in as constants.
const char *kBody = R"CUDA(
typedef unsigned long long u64;
struct Plan {
    T *values;
    T *adjoints;
    const unsigned *opDst, *opA, *opB, *opC, *groupStart;
    const unsigned *edgeStart, *edgeParent, *edgeMul;
    unsigned *barrier; // [arrived, generation]
    unsigned numOps, numInputs, numLevels, outSlot;
};

// Values written by other blocks in an earlier level are read around L1 (which is not coherent
// across SMs); inside one block __syncthreads suffices and L1 may serve them.
template <bool GRID> __device__ __forceinline__ T zb_load(const T *p) {
    if (GRID) return __ldcg(p);
    return *p;
}

// Grid-wide barrier for a cooperative launch (all blocks resident): one arrival counter, and a
// generation number the last arriver bumps. The counter is reset before the bump, so it is zero
// again for the next barrier and the next launch.
__device__ __forceinline__ void zb_grid_barrier(unsigned *bar) {
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile unsigned *gen = bar + 1;
        const unsigned g = *gen;
        __threadfence();
        if (atomicAdd(bar, 1u) == gridDim.x - 1) {
            atomicExch(bar, 0u);
            __threadfence();
            atomicAdd(bar + 1, 1u);
        } else {
            while (*gen == g) { }
        }
        __threadfence();
    }
    __syncthreads();
}

// One kind's ops of one level: each of the ops × B work items is (op k, lane), lane fastest, so a
// warp reads and writes B consecutive values of a slot (coalesced) and shares the op's indices.
template <int KIND, bool GRID>
__device__ __forceinline__ void zb_forward_group(const Plan &p, unsigned o0, unsigned o1,
                                                 u64 t, u64 stride) {
    const u64 work = (u64)(o1 - o0) * ZB_B;
    for (u64 w = t; w < work; w += stride) {
        const unsigned k = o0 + (unsigned)(w / ZB_B), lane = (unsigned)(w % ZB_B);
        const T a = zb_load<GRID>(p.values + (u64)__ldg(p.opA + k) * ZB_B + lane);
        const T b = zb_load<GRID>(p.values + (u64)__ldg(p.opB + k) * ZB_B + lane);
        T r;
        if (KIND == 0) r = zb_plus(a, b);
        else if (KIND == 1) r = zb_times(a, b);
        else r = zb_plus(zb_times(a, b), zb_load<GRID>(p.values + (u64)__ldg(p.opC + k) * ZB_B + lane));
        p.values[(u64)__ldg(p.opDst + k) * ZB_B + lane] = r;
    }
}

template <bool GRID>
__device__ __forceinline__ void zb_forward_level(const Plan &p, unsigned L, u64 t, u64 stride) {
    const unsigned *g = p.groupStart + 3u * L;
    zb_forward_group<0, GRID>(p, g[0], g[1], t, stride);
    zb_forward_group<1, GRID>(p, g[1], g[2], t, stride);
    zb_forward_group<2, GRID>(p, g[2], g[3], t, stride);
}

// Backward step: the adjoint of each item is gathered from its parents' adjoints (written in
// earlier steps), in a fixed edge order: deterministic, no atomics.
template <bool GRID>
__device__ __forceinline__ void zb_backward_step(const Plan &p, unsigned step, u64 t, u64 stride) {
    unsigned i0, i1;
    if (step < p.numLevels) {
        const unsigned L = p.numLevels - 1 - step;
        i0 = p.groupStart[3u * L];
        i1 = p.groupStart[3u * L + 3];
    } else {
        i0 = p.numOps;
        i1 = p.numOps + p.numInputs;
    }
    const u64 work = (u64)(i1 - i0) * ZB_B;
    for (u64 w = t; w < work; w += stride) {
        const unsigned i = i0 + (unsigned)(w / ZB_B), lane = (unsigned)(w % ZB_B);
        const unsigned slot = i < p.numOps ? __ldg(p.opDst + i) : i - p.numOps;
        T acc = slot == p.outSlot ? zb_one() : zb_zero();
        const unsigned e1 = __ldg(p.edgeStart + i + 1);
        for (unsigned e = __ldg(p.edgeStart + i); e < e1; ++e) {
            T g = zb_load<GRID>(p.adjoints + (u64)__ldg(p.edgeParent + e) * ZB_B + lane);
            const unsigned m = __ldg(p.edgeMul + e);
            if (m != 0xffffffffu) g = zb_times(g, zb_load<GRID>(p.values + (u64)m * ZB_B + lane));
            acc = zb_plus(acc, g);
        }
        p.adjoints[(u64)slot * ZB_B + lane] = acc;
    }
}

extern "C" __global__ void __launch_bounds__(ZB_BLOCK) zb_forward_block(Plan p, unsigned first, unsigned last) {
    for (unsigned L = first; L < last; ++L) {
        zb_forward_level<false>(p, L, threadIdx.x, blockDim.x);
        __syncthreads();
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

} // namespace

std::string generateKernelSource(const KernelShape &s) {
    std::ostringstream o;
    o << "// zbddc generated kernels: " << s.describe() << "\n"
      << "#define ZB_B " << s.batch << "u\n"
      << "#define ZB_BLOCK " << s.blockThreads << "\n"
      << arithmetic(s) << kBody;
    return o.str();
}

} // namespace zbddc::cuda
