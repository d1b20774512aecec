#include "backends/cuda/kernel_source.h"

#include "backends/cuda/device_plan.h"    // kOpEdgesPerPiece
#include "backends/cuda/plan_traceback.h" // kTraceSteps
#include "ir/mpe_tie.h"                   // mpeTieRuleKernelSource

#include <algorithm>
#include <sstream>
#include <utility>

namespace zbddc::cuda {

std::string KernelShape::describe() const {
    return std::string(semiringName(semiring)) + (float64 ? " float64" : " float32") +
           (logSpace ? " log" : " linear") + " B=" + std::to_string(batch) +
           " block=" + std::to_string(blockThreads) + (singleLaunch ? " single" : " levels") +
           (interpreted ? std::string(" interpreted")
                        : " types=" + std::to_string(typeCode.size()));
}

namespace {

// The semiring's scalar arithmetic on the representation in use, as device functions. Mirrors
// ir/interpret.cpp's Arith so the oracle and the kernels agree by construction of the same rules.
std::string arithmetic(const KernelShape &s) {
    const bool f = !s.float64;
    const std::string T = f ? "float" : "double";
    const std::string inf =
        f ? "__int_as_float(0x7f800000)" : "__longlong_as_double(0x7ff0000000000000LL)";
    const std::string sfx = f ? "f" : "";
    const bool product = s.semiring == Semiring::SumProduct || s.semiring == Semiring::MaxProduct;
    std::string zero, one, plus, times;
    if (s.logSpace) {
        zero = "-" + inf;
        one = "0";
        times = "return p + q;";
        if (s.semiring == Semiring::SumProduct) {
            plus = "T hi = fmax" + sfx + "(p, q), lo = fmin" + sfx + "(p, q);\n";
            plus += "    if (lo == -" + inf + ") return hi;\n";
            plus += "    return hi + log1p" + sfx + "(exp" + sfx + "(lo - hi));";
        } else {
            plus = "return fmax" + sfx + "(p, q);";
        }
    } else {
        zero = s.semiring == Semiring::MaxSum   ? "-" + inf
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
    const uint4 *opInfo;  // per op (and a sentinel after the last): out slot, type, operand begin
    const unsigned *opOut;
    const unsigned *operands;     // as the forward reads them: a preloaded block's x are tile offsets
    const unsigned *slotOperands; // every operand's slot (the backward pass)
    const unsigned *levelOpBegin; // level L's ops are [levelOpBegin[L], levelOpBegin[L+1])
    // Level L's blocks are [levelBlockBegin[L], [L+1]); block b's ops [blockOpBegin[b], [b+1]),
    // the slots it preloads blockLoads[blockLoadBegin[b], [b+1]).
    const unsigned *levelBlockBegin, *blockOpBegin, *blockLoadBegin, *blockLoads;
    const unsigned *edgeStart, *edgeOut, *edgeOperands, *edgeCode;
    unsigned *barrier; // arrival counter with a flip bit
    // The inputs' backward step in pieces (device_plan.h, InputPieces): piece q's edges, input
    // j's pieces and input index, and a partial row per piece.
    const uint2 *pieceEdges;
    const unsigned *pieceBegin, *pieceInputs;
    T *partials;
    // The levels' gathers in pieces for the single-launch backward (device_plan.h, OpPieces): an
    // op of more than ZB_OP_PIECE edges is gathered by its pieces (level L's: opPieceEdges
    // [levelPieceBegin[L], [L+1])) into partial rows, then its split op entry ⊕s them in order.
    const uint2 *opPieceEdges;
    const unsigned *levelPieceBegin, *levelSplitBegin, *splitOp, *splitPieceBegin;
    T *opPartials;
    // An interpreted module's type catalogue (kernel_source.h, InterpretedTypes).
    const unsigned *typeBegin, *coefBegin, *typeSteps;
    unsigned numOps, numInputs, inputBase, numLevels, outSlot, numPieces, numPieceInputs;
};

// A block's dynamic shared memory: a forward block's preloaded tile, or the single-launch
// kernels' slot range.
extern __shared__ T zb_tile[];

// The single-launch kernels' layout (single_launch.h): the block owns lanes
// [blockIdx.x << laneShift, +1 << laneShift); slots [sharedFirst, sharedFirst + sharedSlots) live
// in shared memory, slot r's lanes side by side; [sharedFirst, stagedEnd) are copied in first.
struct Single {
    unsigned laneShift, sharedFirst, sharedSlots, stagedEnd;
};

// Slot `slot` of lane `lane` (the block's lane `local`), from shared memory where the block holds
// it, else from `rows` (the values or adjoints).
__device__ __forceinline__ T zb_single_load(const T *rows, const Single &s, unsigned slot, unsigned lane, unsigned local) {
    const unsigned r = slot - s.sharedFirst;
    if (r < s.sharedSlots) return zb_tile[(r << s.laneShift) + local];
    return rows[(u64)slot * ZB_B + lane];
}

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

const char *kLevelKernels = R"CUDA(
// Per-type device functions (generated above this text): zb_op<TYPE, GRID>(p, o, lane, tile)
// evaluates an op of that type whose operands start at o (x operands in `tile` when it is not
// null), zb_eval<GRID> switches on a run-time type; zb_coef<GRID>(p, type, pos, o, lane) is the
// op's partial derivative (best completion in max/min semirings) for operand `pos`, all operands
// slots.

// One level, block by block as the schedule cut it (Minato et al. 2011 §2): CUDA block `cu` of
// `cus` runs the level's blocks cu, cu + cus, ... Each block's ops × B work items are (op, lane),
// lane fastest, so a warp reads and writes B consecutive values of a slot (coalesced) and shares
// the op's indices; a block's groups are one op type, so its warps run one branch. A block with a
// tile first copies its x operands' B lanes into shared memory (Minato et al. 2011 §2, last
// paragraph), and its ops read them there. One 16-byte load gives an op's result slot, type and
// operand offset.
template <bool GRID>
__device__ __forceinline__ void zb_forward_level(const Plan &p, unsigned b0, unsigned b1, unsigned cu, unsigned cus) {
    for (unsigned b = b0 + cu; b < b1; b += cus) {
        const unsigned k0 = __ldg(p.blockOpBegin + b), k1 = __ldg(p.blockOpBegin + b + 1);
        const unsigned l0 = __ldg(p.blockLoadBegin + b), l1 = __ldg(p.blockLoadBegin + b + 1);
        const T *tile = nullptr;
        if (l1 > l0) { // the same for every thread of the block: the barriers are uniform
            for (unsigned i = threadIdx.x; i < (l1 - l0) * ZB_B; i += blockDim.x)
                zb_tile[i] = zb_load<GRID>(p.values + (u64)__ldg(p.blockLoads + l0 + i / ZB_B) * ZB_B + i % ZB_B);
            __syncthreads();
            tile = zb_tile;
        }
        const u64 work = (u64)(k1 - k0) * ZB_B;
        for (u64 w = threadIdx.x; w < work; w += blockDim.x) {
            const unsigned k = k0 + (unsigned)(w / ZB_B), lane = (unsigned)(w % ZB_B);
            const uint4 info = __ldg(p.opInfo + k);
            p.values[(u64)info.x * ZB_B + lane] = zb_eval<GRID>(p, info.y, p.operands + info.z, lane, tile);
        }
        if (l1 > l0) __syncthreads(); // the next block's tile overwrites this one
    }
}

// Stages levels [c0, c1]'s first blocks into shared memory (every thread of the block takes part).
#define ZB_STAGE_LEVELS 1024
__device__ __forceinline__ void zb_stage_levels(const Plan &p, unsigned *lob, unsigned c0, unsigned c1) {
    for (unsigned i = threadIdx.x; i <= c1 - c0; i += blockDim.x)
        lob[i] = __ldg(p.levelBlockBegin + c0 + i);
    __syncthreads();
}

// The ⊕ over edges [e0, e1) of a reader's adjoint ⊗ its partial derivative, starting from acc.
// Each edge carries its reader's adjoint slot, operand offset and (type, position) code, so all
// of an edge's loads issue at once.
template <bool GRID>
__device__ __forceinline__ T zb_gather(const Plan &p, unsigned e0, unsigned e1, unsigned lane, T acc) {
    for (unsigned e = e0; e < e1; ++e) {
        const T g = zb_load<GRID>(p.adjoints + (u64)__ldg(p.edgeOut + e) * ZB_B + lane);
        const unsigned *o = p.slotOperands + __ldg(p.edgeOperands + e);
        acc = zb_plus(acc, zb_times(g, zb_coef<GRID>(p, __ldg(p.edgeCode + e), o, lane)));
    }
    return acc;
}

// Backward step: the adjoint of each item is gathered from its readers' adjoints (written in
// earlier steps), in a fixed edge order: deterministic, no atomics. Steps [0, numLevels) are the
// levels, last first; then the inputs in two: each piece of an input's edges into its partial
// row, and each input's partials ⊕ed in order into its adjoint.
template <bool GRID>
__device__ __forceinline__ void zb_backward_step(const Plan &p, unsigned step, u64 t, u64 stride) {
    if (step == p.numLevels) {
        const u64 work = (u64)p.numPieces * ZB_B;
        for (u64 w = t; w < work; w += stride) {
            const unsigned q = (unsigned)(w / ZB_B), lane = (unsigned)(w % ZB_B);
            const uint2 e = __ldg(p.pieceEdges + q);
            p.partials[(u64)q * ZB_B + lane] = zb_gather<GRID>(p, e.x, e.y, lane, zb_zero());
        }
        return;
    }
    if (step > p.numLevels) {
        const u64 work = (u64)p.numPieceInputs * ZB_B;
        for (u64 w = t; w < work; w += stride) {
            const unsigned j = (unsigned)(w / ZB_B), lane = (unsigned)(w % ZB_B);
            const unsigned slot = p.inputBase + __ldg(p.pieceInputs + j);
            T acc = slot == p.outSlot ? zb_one() : zb_zero();
            const unsigned q1 = __ldg(p.pieceBegin + j + 1);
            for (unsigned q = __ldg(p.pieceBegin + j); q < q1; ++q)
                acc = zb_plus(acc, zb_load<GRID>(p.partials + (u64)q * ZB_B + lane));
            p.adjoints[(u64)slot * ZB_B + lane] = acc;
        }
        return;
    }
    const unsigned L = p.numLevels - 1 - step;
    const unsigned i0 = __ldg(p.levelOpBegin + L), i1 = __ldg(p.levelOpBegin + L + 1);
    const u64 work = (u64)(i1 - i0) * ZB_B;
    for (u64 w = t; w < work; w += stride) {
        const unsigned i = i0 + (unsigned)(w / ZB_B), lane = (unsigned)(w % ZB_B);
        const unsigned slot = __ldg(p.opOut + i);
        const T acc = zb_gather<GRID>(p, __ldg(p.edgeStart + i), __ldg(p.edgeStart + i + 1), lane,
                                      slot == p.outSlot ? zb_one() : zb_zero());
        p.adjoints[(u64)slot * ZB_B + lane] = acc;
    }
}

// Block segments walk many tiny levels: each chunk of levels has its block boundaries staged in
// shared memory and its block, op and operand arrays prefetched into L1, so a level's critical
// path is the operand and value loads.
extern "C" __global__ void __launch_bounds__(ZB_BLOCK) zb_forward_block(Plan p, unsigned first, unsigned last) {
    __shared__ unsigned lob[ZB_STAGE_LEVELS + 1];
    for (unsigned c0 = first; c0 < last; c0 += ZB_STAGE_LEVELS) {
        const unsigned c1 = min(last, c0 + ZB_STAGE_LEVELS);
        zb_stage_levels(p, lob, c0, c1);
        const unsigned bl0 = lob[0], bl1 = lob[c1 - c0];
        zb_prefetch_l1(p.blockOpBegin + bl0, 4 * (bl1 - bl0 + 1));
        zb_prefetch_l1(p.blockLoadBegin + bl0, 4 * (bl1 - bl0 + 1));
        const unsigned k0 = __ldg(p.blockOpBegin + bl0), k1 = __ldg(p.blockOpBegin + bl1);
        zb_prefetch_l1(p.opInfo + k0, 16 * (k1 - k0));
        const unsigned o0 = __ldg(&p.opInfo[k0].z), o1 = __ldg(&p.opInfo[k1].z);
        zb_prefetch_l1(p.operands + o0, 4 * (o1 - o0));
        for (unsigned L = c0; L < c1; ++L) {
            zb_forward_level<false>(p, lob[L - c0], lob[L - c0 + 1], 0, 1);
            __syncthreads();
        }
    }
}

extern "C" __global__ void __launch_bounds__(ZB_BLOCK) zb_forward_grid(Plan p, unsigned first, unsigned last) {
    __shared__ unsigned lob[ZB_STAGE_LEVELS + 1];
    for (unsigned c0 = first; c0 < last; c0 += ZB_STAGE_LEVELS) {
        const unsigned c1 = min(last, c0 + ZB_STAGE_LEVELS);
        zb_stage_levels(p, lob, c0, c1); // the grid barrier before it ends the last chunk's reads
        for (unsigned L = c0; L < c1; ++L) {
            zb_forward_level<true>(p, lob[L - c0], lob[L - c0 + 1], blockIdx.x, gridDim.x);
            if (L + 1 < last) zb_grid_barrier(p.barrier);
        }
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

const char *kSingleKernels = R"CUDA(
// The single-launch evaluator (single_launch.h): one block per slice of lanes walks every level,
// __syncthreads between them. Work item w of a level is op w >> laneShift, lane w & mask: a warp
// covers consecutive lanes of one op (coalesced where it reads global rows) and, at one lane per
// block, 32 ops of the level. Values are written through to the global rows (the outputs and the
// backward pass read them there).
extern "C" __global__ void __launch_bounds__(ZB_BLOCK) zb_forward_single(Plan p, Single s) {
    const unsigned mask = (1u << s.laneShift) - 1, lane0 = blockIdx.x << s.laneShift;
    for (unsigned i = threadIdx.x; i < (s.stagedEnd - s.sharedFirst) << s.laneShift; i += blockDim.x) {
        const unsigned lane = lane0 + (i & mask);
        if (lane < ZB_B)
            zb_tile[i] = p.values[(u64)(s.sharedFirst + (i >> s.laneShift)) * ZB_B + lane];
    }
    __syncthreads();
    for (unsigned L = 0; L < p.numLevels; ++L) {
        const unsigned i0 = __ldg(p.levelOpBegin + L), i1 = __ldg(p.levelOpBegin + L + 1);
        const unsigned work = (i1 - i0) << s.laneShift;
        for (unsigned w = threadIdx.x; w < work; w += blockDim.x) {
            const unsigned k = i0 + (w >> s.laneShift), local = w & mask, lane = lane0 + local;
            if (lane >= ZB_B) continue; // the last block's lanes past the batch
            const uint4 info = __ldg(p.opInfo + k);
            const T v = zb_single_eval(p, s, info.y, p.slotOperands + info.z, lane, local);
            const unsigned r = info.x - s.sharedFirst;
            if (r < s.sharedSlots) zb_tile[(r << s.laneShift) + local] = v;
            p.values[(u64)info.x * ZB_B + lane] = v;
        }
        __syncthreads();
    }
}

// Slot `slot` of lane `lane` written where zb_single_load reads it.
__device__ __forceinline__ void zb_single_store(T *rows, const Single &s, unsigned slot, unsigned lane, unsigned local, T v) {
    const unsigned r = slot - s.sharedFirst;
    if (r < s.sharedSlots) zb_tile[(r << s.laneShift) + local] = v;
    else rows[(u64)slot * ZB_B + lane] = v;
}

// `f(out, operands, code)` for each edge of [e0, e1) in order: the reader's adjoint slot, its
// operands' slots and the (type, position) code. The next edge's three words load while f reads
// this edge's values, which takes one link out of each edge's chain of dependent loads.
template <class F>
__device__ __forceinline__ void zb_each_edge(const Plan &p, unsigned e0, unsigned e1, F f) {
    if (e0 >= e1) return;
    unsigned out = __ldg(p.edgeOut + e0), ops = __ldg(p.edgeOperands + e0), code = __ldg(p.edgeCode + e0);
    for (unsigned e = e0; e < e1; ++e) {
        const unsigned n = e + 1 < e1 ? e + 1 : e;
        const unsigned nextOut = __ldg(p.edgeOut + n), nextOps = __ldg(p.edgeOperands + n),
                       nextCode = __ldg(p.edgeCode + n);
        f(out, p.slotOperands + ops, code);
        out = nextOut, ops = nextOps, code = nextCode;
    }
}

// The ⊕ over edges [e0, e1) of a reader's adjoint (shared memory where the block holds it) ⊗ its
// partial derivative (values from the global rows), from acc, in edge order.
__device__ __forceinline__ T zb_single_gather(const Plan &p, const Single &s, unsigned e0, unsigned e1, unsigned lane, unsigned local, T acc) {
    zb_each_edge(p, e0, e1, [&](unsigned out, const unsigned *o, unsigned code) {
        const T g = zb_single_load(p.adjoints, s, out, lane, local);
        acc = zb_plus(acc, zb_times(g, zb_coef<false>(p, code, o, lane)));
    });
    return acc;
}

// Backward in one launch: the levels last first, each op's adjoint gathered from its readers'
// (shared memory where the block holds them, else the global rows), then every input's adjoint
// from all its edges in order, into the global rows. No atomics: each sum has one fixed order.
extern "C" __global__ void __launch_bounds__(ZB_BLOCK) zb_backward_single(Plan p, Single s) {
    const unsigned mask = (1u << s.laneShift) - 1, lane0 = blockIdx.x << s.laneShift;
    for (unsigned L = p.numLevels; L-- > 0;) {
        const unsigned i0 = __ldg(p.levelOpBegin + L), i1 = __ldg(p.levelOpBegin + L + 1);
        // The level's ops, then its pieces: one gather call site (each one inlines the whole
        // derivative switch, and NVRTC's time grows with them).
        const unsigned q0 = __ldg(p.levelPieceBegin + L), q1 = __ldg(p.levelPieceBegin + L + 1);
        const unsigned work = (i1 - i0 + q1 - q0) << s.laneShift;
        for (unsigned w = threadIdx.x; w < work; w += blockDim.x) {
            const unsigned item = w >> s.laneShift, local = w & mask, lane = lane0 + local;
            if (lane >= ZB_B) continue;
            const bool piece = item >= i1 - i0;
            const unsigned k = i0 + item, q = q0 + item - (i1 - i0);
            unsigned e0, e1, slot = 0;
            if (piece) {
                const uint2 e = __ldg(p.opPieceEdges + q);
                e0 = e.x, e1 = e.y;
            } else {
                e0 = __ldg(p.edgeStart + k), e1 = __ldg(p.edgeStart + k + 1);
                if (e1 - e0 > ZB_OP_PIECE) continue; // gathered by its pieces
                slot = __ldg(p.opOut + k);
            }
            const T acc = zb_single_gather(p, s, e0, e1, lane, local,
                                           !piece && slot == p.outSlot ? zb_one() : zb_zero());
            if (piece) p.opPartials[(u64)q * ZB_B + lane] = acc;
            else zb_single_store(p.adjoints, s, slot, lane, local, acc);
        }
        __syncthreads();
        const unsigned j0 = __ldg(p.levelSplitBegin + L), j1 = __ldg(p.levelSplitBegin + L + 1);
        if (j1 == j0) continue;
        for (unsigned w = threadIdx.x; w < ((j1 - j0) << s.laneShift); w += blockDim.x) {
            const unsigned j = j0 + (w >> s.laneShift), local = w & mask, lane = lane0 + local;
            if (lane >= ZB_B) continue;
            const unsigned slot = __ldg(p.opOut + __ldg(p.splitOp + j));
            T acc = slot == p.outSlot ? zb_one() : zb_zero();
            const unsigned r1 = __ldg(p.splitPieceBegin + j + 1);
            for (unsigned r = __ldg(p.splitPieceBegin + j); r < r1; ++r)
                acc = zb_plus(acc, p.opPartials[(u64)r * ZB_B + lane]);
            zb_single_store(p.adjoints, s, slot, lane, local, acc);
        }
        __syncthreads();
    }
    const unsigned work = p.numInputs << s.laneShift;
    for (unsigned w = threadIdx.x; w < work; w += blockDim.x) {
        const unsigned j = w >> s.laneShift, local = w & mask, lane = lane0 + local;
        if (lane >= ZB_B) continue;
        const unsigned slot = p.inputBase + j, item = p.numOps + j;
        p.adjoints[(u64)slot * ZB_B + lane] =
            zb_single_gather(p, s, __ldg(p.edgeStart + item), __ldg(p.edgeStart + item + 1), lane,
                             local, slot == p.outSlot ? zb_one() : zb_zero());
    }
}

)CUDA";

const char *kRowKernels = R"CUDA(
// The rows of some slots (ZB_B lanes each) to and from one packed buffer, row r being slot
// slots[r]'s: a batch's varying inputs go in, and their adjoints come back, in one copy each.
extern "C" __global__ void zb_scatter_rows(T *rows, const T *packed, const unsigned *slots, unsigned count) {
    const u64 n = (u64)count * ZB_B, stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        rows[(u64)__ldg(slots + i / ZB_B) * ZB_B + i % ZB_B] = packed[i];
}

extern "C" __global__ void zb_gather_rows(T *packed, const T *rows, const unsigned *slots, unsigned count) {
    const u64 n = (u64)count * ZB_B, stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        packed[i] = rows[(u64)__ldg(slots + i / ZB_B) * ZB_B + i % ZB_B];
}

// `count` consecutive rows from one value each (`row[r]` into every lane of row r): a batch's
// shared inputs, sent once rather than once per lane.
extern "C" __global__ void zb_broadcast_rows(T *rows, const T *row, unsigned count) {
    const u64 n = (u64)count * ZB_B, stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        rows[i] = __ldg(row + i / ZB_B);
}
)CUDA";

// A template as an expression tree (postfix → tree), for the forward expression and for each
// operand's partial derivative: the ⊗ of the sibling subtrees on the path from the root to that
// operand (⊕ passes the adjoint through). Every operand is a leaf used once, so this is exact in
// every semiring.
struct Tree {
    struct Node {
        int step = 0;  // TemplateStep
        int leaf = -1; // operand position, for loads
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
    // Leaves as macro calls: x leaves `x(j)` (X: a preloaded block's tile, else the slot), f
    // leaves `f(j)`.
    std::string expr(int i, const char *x = "V", const char *f = "V") const {
        const Node &n = nodes[i];
        if (n.leaf >= 0)
            return std::string(n.step == 1 ? x : f) + "(" + std::to_string(n.leaf) + ")";
        return std::string(n.step == 2 ? "zb_times(" : "zb_plus(") + expr(n.left, x, f) + ", " +
               expr(n.right, x, f) + ")";
    }
    // The subtree under i as step words (InterpretedTypes).
    void steps(int i, std::vector<uint32_t> &out) const {
        const Node &n = nodes[i];
        if (n.leaf >= 0) {
            out.push_back(static_cast<uint32_t>(n.step) | static_cast<uint32_t>(n.leaf) << 2);
            return;
        }
        steps(n.left, out);
        steps(n.right, out);
        out.push_back(static_cast<uint32_t>(n.step));
    }
    // The sibling subtrees on the path to `leaf` under ⊗ nodes (the partial derivative's
    // factors, ⊕ passing the adjoint through); false when the leaf is not under i.
    bool siblings(int i, int leaf, std::vector<int> &factors) const {
        const Node &n = nodes[i];
        if (n.leaf >= 0)
            return n.leaf == leaf;
        for (auto [here, other] : {std::pair{n.left, n.right}, {n.right, n.left}})
            if (siblings(here, leaf, factors)) {
                if (n.step == 2)
                    factors.push_back(other);
                return true;
            }
        return false;
    }
    // coef(leaf) as step words, its factors ⊗ed in the same order.
    std::vector<uint32_t> coefSteps(int leaf) const {
        std::vector<int> f;
        siblings(root, leaf, f);
        std::vector<uint32_t> out;
        for (size_t k = 0; k < f.size(); ++k) {
            steps(f[k], out);
            if (k > 0)
                out.push_back(static_cast<uint32_t>(TemplateStep::Times));
        }
        return out;
    }
    std::string coef(int leaf) const {
        std::vector<int> f;
        siblings(root, leaf, f);
        std::string e = "zb_one()";
        for (int x : f)
            e = e == "zb_one()" ? expr(x) : "zb_times(" + e + ", " + expr(x) + ")";
        return e;
    }
    int leaves() const {
        int n = 0;
        for (const Node &x : nodes)
            n += x.leaf >= 0;
        return n;
    }
};

// A device function `head` whose body returns the expression of the case `on` names, zb_zero()
// for any other value.
using SwitchCases = std::vector<std::pair<size_t, std::string>>;
void emitSwitchFunction(std::ostream &o, const std::string &head, const char *on,
                        const SwitchCases &cases) {
    o << head << " {\n    switch (" << on << ") {\n";
    for (const auto &[value, expr] : cases)
        o << "    case " << value << ": return " << expr << ";\n";
    o << "    default: return zb_zero();\n    }\n}\n";
}

// The interpreted types' device functions, the same entry points as typeFunctions' below: each
// walks its step words (InterpretedTypes) with a stack, loading leaf j from operand o[j].
const char *kInterpretedTypes = R"CUDA(
template <class LOAD>
__device__ __forceinline__ T zb_interpret(const unsigned *step, const unsigned *end, LOAD load) {
    // A binary op and a one-factor derivative, the commonest (a circuit's AND and OR nodes), with
    // no stack: it would live in local memory.
    if (end - step == 3) {
        const unsigned a = __ldg(step), b = __ldg(step + 1);
        const T p = load(a >> 2, a & 3u), q = load(b >> 2, b & 3u);
        return __ldg(step + 2) == 2 ? zb_times(p, q) : zb_plus(p, q);
    }
    if (end - step == 1) {
        const unsigned a = __ldg(step);
        return load(a >> 2, a & 3u);
    }
    T stack[ZB_STACK];
    unsigned top = 0;
    for (; step < end; ++step) {
        const unsigned w = __ldg(step), kind = w & 3u;
        if (kind <= 1) { stack[top++] = load(w >> 2, kind); continue; }
        const T q = stack[--top];
        stack[top - 1] = kind == 2 ? zb_times(stack[top - 1], q) : zb_plus(stack[top - 1], q);
    }
    return top ? stack[0] : zb_one();
}

template <bool GRID>
__device__ __forceinline__ T zb_coef(const Plan &p, unsigned code, const unsigned *o, unsigned lane) {
    return zb_interpret(p.typeSteps + __ldg(p.coefBegin + code), p.typeSteps + __ldg(p.coefBegin + code + 1),
        [&](unsigned j, unsigned) { return zb_load<GRID>(p.values + (u64)__ldg(o + j) * ZB_B + lane); });
}
)CUDA";
const char *kInterpretedSingle = R"CUDA(
__device__ __forceinline__ T zb_single_eval(const Plan &p, const Single &s, unsigned type, const unsigned *o, unsigned lane, unsigned local) {
    return zb_interpret(p.typeSteps + __ldg(p.typeBegin + type), p.typeSteps + __ldg(p.typeBegin + type + 1),
        [&](unsigned j, unsigned) { return zb_single_load(p.values, s, __ldg(o + j), lane, local); });
}
)CUDA";
const char *kInterpretedLevels = R"CUDA(
template <bool GRID>
__device__ __forceinline__ T zb_eval(const Plan &p, unsigned type, const unsigned *o, unsigned lane, const T *tile) {
    return zb_interpret(p.typeSteps + __ldg(p.typeBegin + type), p.typeSteps + __ldg(p.typeBegin + type + 1),
        [&](unsigned j, unsigned kind) {
            const unsigned at = __ldg(o + j);
            return kind == 1 && tile ? tile[at * ZB_B + lane] : zb_load<GRID>(p.values + (u64)at * ZB_B + lane);
        });
}
)CUDA";

std::string interpretedTypeFunctions(const KernelShape &s) {
    return "#define ZB_STACK " + std::to_string(kInterpretedStack) + "\n" + kInterpretedTypes +
           (s.singleLaunch ? kInterpretedSingle : kInterpretedLevels);
}

// The types' device functions: zb_coef<GRID>(p, code, o, lane), an op's partial derivative by
// code = type * 64 + operand position; for the level kernels zb_op<TYPE, GRID> and zb_eval<GRID>
// (an x operand from the block's tile where it has one), for the single-launch kernels
// zb_single_eval (every operand where the block keeps it).
std::string typeFunctions(const KernelShape &s) {
    std::ostringstream o;
    o << "#define V(j) zb_load<GRID>(p.values + (u64)__ldg(o + (j)) * ZB_B + lane)\n";
    SwitchCases coef, eval;
    for (size_t t = 0; t < s.typeCode.size(); ++t) {
        const Tree tree(s.typeCode[t]);
        for (int j = 0; j < tree.leaves(); ++j)
            coef.emplace_back(t * 64 + j, tree.coef(j));
        eval.emplace_back(t, s.singleLaunch
                                 ? tree.expr(tree.root, "S", "S")
                                 : "zb_op<" + std::to_string(t) + ", GRID>(p, o, lane, tile)");
    }
    emitSwitchFunction(o,
                       "template <bool GRID>\n__device__ __forceinline__ T zb_coef(const Plan &p, "
                       "unsigned code, const unsigned *o, unsigned lane)",
                       "code", coef);
    if (s.singleLaunch) {
        o << "#define S(j) zb_single_load(p.values, s, __ldg(o + (j)), lane, local)\n";
        emitSwitchFunction(
            o,
            "__device__ __forceinline__ T zb_single_eval(const Plan &p, const Single &s, "
            "unsigned type, const unsigned *o, unsigned lane, unsigned local)",
            "type", eval);
        return o.str();
    }
    o << "#define X(j) (tile ? tile[__ldg(o + (j)) * ZB_B + lane] : V(j))\n";
    o << "template <int TYPE, bool GRID>\n__device__ __forceinline__ T zb_op(const Plan &p, "
         "const unsigned *o, unsigned lane, const T *tile) {\n";
    for (size_t t = 0; t < s.typeCode.size(); ++t) {
        const Tree tree(s.typeCode[t]);
        o << "    " << (t ? "else " : "") << "if constexpr (TYPE == " << t << ") return "
          << tree.expr(tree.root, "X") << ";\n";
    }
    o << "    else return zb_zero();\n}\n";
    emitSwitchFunction(o,
                       "template <bool GRID>\n__device__ __forceinline__ T zb_eval(const Plan &p, "
                       "unsigned type, const unsigned *o, unsigned lane, const T *tile)",
                       "type", eval);
    return o.str();
}

// Stringizing drops the comments and joins the lines: NVRTC gets the code alone.
#define ZB_TRACEBACK_KERNEL(...) #__VA_ARGS__
const char *kTraceback =
#include "backends/cuda/traceback_kernel.inc"
    ;
#undef ZB_TRACEBACK_KERNEL
#define ZB_CASE_ROWS_KERNEL(...) #__VA_ARGS__
const char *kCaseRows =
#include "backends/cuda/case_rows_kernel.inc"
    ;
#undef ZB_CASE_ROWS_KERNEL

// The deepest stack a run of step words reaches.
uint32_t stackDepth(const std::vector<uint32_t> &steps) {
    uint32_t top = 0, deepest = 0;
    for (uint32_t w : steps) {
        top = (w & 3u) <= 1 ? top + 1 : top - 1;
        deepest = std::max(deepest, top);
    }
    return deepest;
}

} // namespace

InterpretedTypes interpretTypes(const std::vector<std::vector<uint32_t>> &typeCode) {
    // The templates' steps first, then the derivatives', each list's entries contiguous.
    std::vector<uint32_t> typeSteps, coefSteps;
    InterpretedTypes t;
    auto append = [&t](const std::vector<uint32_t> &steps, std::vector<uint32_t> &to,
                       std::vector<uint32_t> &begin) {
        to.insert(to.end(), steps.begin(), steps.end());
        begin.push_back(static_cast<uint32_t>(to.size()));
        t.maxStack = std::max(t.maxStack, stackDepth(steps));
    };
    for (const std::vector<uint32_t> &code : typeCode) {
        const Tree tree(code);
        std::vector<uint32_t> steps;
        if (tree.root >= 0)
            tree.steps(tree.root, steps);
        append(steps, typeSteps, t.typeBegin);
        // Codes t * 64 + j (zb_coef's); positions past the arity get no steps.
        const int arity = tree.leaves();
        for (int j = 0; j < 64; ++j)
            append(j < arity ? tree.coefSteps(j) : std::vector<uint32_t>{}, coefSteps,
                   t.coefBegin);
    }
    for (uint32_t &b : t.coefBegin)
        b += static_cast<uint32_t>(typeSteps.size());
    t.steps = std::move(typeSteps);
    t.steps.insert(t.steps.end(), coefSteps.begin(), coefSteps.end());
    return t;
}

bool tracesBack(Semiring s) {
    return s == Semiring::MaxProduct || s == Semiring::MaxSum || s == Semiring::MinSum;
}

std::string generateKernelSource(const KernelShape &s) {
    std::ostringstream o;
    o << "// zbddc generated kernels: " << s.describe() << "\n"
      << "#define ZB_B " << s.batch << "u\n"
      << "#define ZB_BLOCK " << s.blockThreads << "\n"
      << "#define ZB_OP_PIECE " << kOpEdgesPerPiece << "u\n"
      << arithmetic(s) << kPrelude
      << (s.interpreted ? interpretedTypeFunctions(s) : typeFunctions(s))
      << (s.singleLaunch ? kSingleKernels : kLevelKernels) << kRowKernels;
    o << "#define ZB_LOG_INPUTS " << s.logSpace << "\n" << kCaseRows << "\n";
    if (tracesBack(s.semiring))
        o << "#define ZB_TRACE_STEPS " << kTraceSteps << "u\n"
          << "#define ZB_TIE_MINIMIZE " << (s.semiring == Semiring::MinSum) << "\n"
          << "#define ZB_TIE_PRODUCT " << (s.semiring == Semiring::MaxProduct && !s.logSpace)
          << "\n"
          << mpeTieRuleKernelSource() << kTraceback << "\n";
    return o.str();
}

} // namespace zbddc::cuda
