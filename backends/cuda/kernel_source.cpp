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

// Block segments walk many tiny levels: their level table goes to shared memory and their index
// arrays are prefetched into L1, so a level's critical path is the value loads alone.
#define ZB_STAGE 1024
__device__ __forceinline__ void zb_prefetch_l1(const void *p, unsigned bytes) {
    bytes = min(bytes, 32768u); // beyond L1's share, prefetching only evicts
    for (unsigned off = threadIdx.x * 128u; off < bytes; off += blockDim.x * 128u)
        asm volatile("prefetch.global.L1 [%0];" :: "l"((const char *)p + off));
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
    __shared__ unsigned g[3 * ZB_STAGE + 1];
    for (unsigned c0 = first; c0 < last; c0 += ZB_STAGE) {
        const unsigned c1 = min(last, c0 + ZB_STAGE);
        for (unsigned i = threadIdx.x; i <= 3 * (c1 - c0); i += blockDim.x)
            g[i] = p.groupStart[3 * c0 + i];
        __syncthreads();
        const unsigned k0 = g[0], k1 = g[3 * (c1 - c0)];
        zb_prefetch_l1(p.opA + k0, 4 * (k1 - k0));
        zb_prefetch_l1(p.opB + k0, 4 * (k1 - k0));
        zb_prefetch_l1(p.opC + k0, 4 * (k1 - k0));
        zb_prefetch_l1(p.opDst + k0, 4 * (k1 - k0));
        for (unsigned L = c0; L < c1; ++L) {
            const unsigned *h = g + 3 * (L - c0);
            zb_forward_group<0, false>(p, h[0], h[1], threadIdx.x, blockDim.x);
            zb_forward_group<1, false>(p, h[1], h[2], threadIdx.x, blockDim.x);
            zb_forward_group<2, false>(p, h[2], h[3], threadIdx.x, blockDim.x);
            __syncthreads();
        }
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
