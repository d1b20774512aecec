#include "backends/cuda/loopy_kernels.h"

#include <sstream>

namespace zbddc::cuda {

namespace {

const char *kCommon = R"(typedef unsigned int u32;
typedef unsigned long long u64;
#define NEG_INF __longlong_as_double(0xfff0000000000000ULL)

// The message into a factor from one of its variables: the variable's sum less the factor's own.
__device__ __forceinline__ double messageIn(const double *finite, const u32 *zeros,
                                            const double *msg, u64 state, u64 entry, u32 B, u32 b) {
    const double own = msg[entry * B + b];
    const bool ownZero = isinf(own);
    if (zeros[state * B + b] > (ownZero ? 1u : 0u))
        return NEG_INF;
    return finite[state * B + b] - (ownZero ? 0.0 : own);
}

__device__ __forceinline__ double logAdd(double a, double b) {
    const double m = fmax(a, b);
    return m == NEG_INF ? m : m + log(exp(a - m) + exp(b - m));
}

// Shared-memory merge of a partial message entry: log-add (sum-product) or max (max-product).
__device__ __forceinline__ void mergeInto(double *at, double v, int maxProduct) {
    u64 *p = (u64 *)at;
    u64 old = *p, seen;
    do {
        seen = old;
        const double cur = __longlong_as_double((long long)seen);
        const double next = maxProduct ? fmax(cur, v) : logAdd(cur, v);
        if (next == cur)
            return;
        old = atomicCAS(p, seen, (u64)__double_as_longlong(next));
    } while (old != seen);
}

extern "C" __global__ void lbp_sums(const double *msg, const u64 *msgOffset, const u32 *varEdgeStart,
                                    const u32 *varEdges, const u64 *stateOffset, const u32 *domains,
                                    const u32 *evidence, const u32 *active, double *finite,
                                    u32 *zeros, u32 nVars, u32 B) {
    const u64 idx = blockIdx.x * (u64)blockDim.x + threadIdx.x;
    if (idx >= (u64)nVars * B)
        return;
    const u32 b = idx % B, v = idx / B;
    if (!active[b])
        return;
    const u32 observed = evidence[(u64)v * B + b];
    for (u32 x = 0; x < domains[v]; ++x) {
        double sum = 0;
        u32 z = observed != 0xffffffffu && observed != x;
        for (u32 i = varEdgeStart[v]; i < varEdgeStart[v + 1]; ++i) {
            const double m = msg[(msgOffset[varEdges[i]] + x) * B + b];
            if (isinf(m))
                ++z;
            else
                sum += m;
        }
        finite[(stateOffset[v] + x) * B + b] = sum;
        zeros[(stateOffset[v] + x) * B + b] = z;
    }
}

// Normalises edge e's fresh message of instance b (damped if asked) into `upd`; returns its
// largest change. A message that vanished marks its instance instead.
__device__ double finishMessage(const double *raw, const double *msg, double *upd,
                                const u64 *msgOffset, u32 *vanished, u32 e, u32 B, u32 b,
                                int maxProduct, double damping) {
    const u64 o = msgOffset[e], d = msgOffset[e + 1] - o;
    double top = NEG_INF;
    for (u64 x = 0; x < d; ++x)
        top = fmax(top, raw[(o + x) * B + b]);
    if (top == NEG_INF) {
        vanished[b] = 1;
        return 0;
    }
    double shift = top;
    if (!maxProduct) {
        double s = 0;
        for (u64 x = 0; x < d; ++x)
            s += exp(raw[(o + x) * B + b] - top);
        shift += log(s);
    }
    double residual = 0;
    for (u64 x = 0; x < d; ++x) {
        const double fresh = raw[(o + x) * B + b] - shift, old = msg[(o + x) * B + b];
        double r;
        if (!maxProduct)
            r = fabs(exp(fresh) - exp(old));
        else if (isinf(fresh) || isinf(old))
            r = fresh == old ? 0.0 : __longlong_as_double(0x7ff0000000000000ULL);
        else
            r = fabs(fresh - old);
        residual = fmax(residual, r);
        upd[(o + x) * B + b] = damping > 0 ? (isinf(fresh) || isinf(old)
                                                  ? NEG_INF
                                                  : (1 - damping) * fresh + damping * old)
                                           : fresh;
    }
    if (damping > 0) { // the geometric mean is normalised again
        double t2 = NEG_INF;
        for (u64 x = 0; x < d; ++x)
            t2 = fmax(t2, upd[(o + x) * B + b]);
        double s2 = t2;
        if (!maxProduct && t2 != NEG_INF) {
            double s = 0;
            for (u64 x = 0; x < d; ++x)
                s += exp(upd[(o + x) * B + b] - t2);
            s2 += log(s);
        }
        if (t2 == NEG_INF)
            vanished[b] = 1;
        else
            for (u64 x = 0; x < d; ++x)
                upd[(o + x) * B + b] -= s2;
    }
    return residual;
}

// Every thread of a warp reaches the shuffles (no early return): lanes l, l+B, l+2B, ... hold
// the same instance when B < 32, and are folded into lane l, so a sweep issues one atomic per
// instance and warp rather than one per edge; with one instance, a million-variable grid's
// edges otherwise serialise on a single address (most of a sweep's time on the H100).
// `edgeResidual` (the residual schedule; null for flooding) keeps each edge's residual.
extern "C" __global__ void lbp_finish(const double *raw, const double *msg, double *upd,
                                      const u64 *msgOffset, const u32 *active, u64 *residualBits,
                                      u32 *vanished, double *edgeResidual, u32 nEdges, u32 B,
                                      int maxProduct, double damping) {
    const u64 idx = blockIdx.x * (u64)blockDim.x + threadIdx.x;
    const u32 b = idx % B;
    const bool mine = idx < (u64)nEdges * B && active[b];
    double residual = mine ? finishMessage(raw, msg, upd, msgOffset, vanished, (u32)(idx / B), B,
                                           b, maxProduct, damping)
                           : 0.0;
    if (mine && edgeResidual)
        edgeResidual[idx] = residual;
    for (u32 s = B; s < 32; s *= 2)
        residual = fmax(residual, __shfl_down_sync(0xffffffffu, residual, s));
    // Residuals are non-negative, so their bit patterns order as the numbers do.
    if (mine && (B >= 32 || threadIdx.x % 32 < B) && residual > 0)
        atomicMax(residualBits + b, (u64)__double_as_longlong(residual));
}

extern "C" __global__ void lbp_commit(const double *upd, double *msg, const u32 *commit,
                                      u64 nEntries, u32 B) {
    const u64 idx = blockIdx.x * (u64)blockDim.x + threadIdx.x;
    if (idx < nEntries * B && commit[idx % B])
        msg[idx] = upd[idx];
}

// A residual round (Elidan, McGraw and Koller 2006, in parallel rounds as the CPU runs them):
// only the messages whose residual reaches their instance's threshold are sent.
extern "C" __global__ void lbp_commit_edges(const double *upd, double *msg, const u64 *msgOffset,
                                            const double *edgeResidual, const double *threshold,
                                            const u32 *commit, u32 nEdges, u32 B) {
    const u64 idx = blockIdx.x * (u64)blockDim.x + threadIdx.x;
    if (idx >= (u64)nEdges * B)
        return;
    const u32 b = idx % B, e = idx / B;
    if (!commit[b] || edgeResidual[idx] < threshold[b])
        return;
    for (u64 j = msgOffset[e]; j < msgOffset[e + 1]; ++j)
        msg[j * B + b] = upd[j * B + b];
}
)";

// The parameters every group kernel takes, in order (loopy_gpu.cpp passes them so).
const char *kGroupParams =
    "(const double *logValues, const u64 *tableOffset, const u32 *groupFactors, "
    "const u32 *factorEdgeStart, const u32 *edgeVar, const u64 *msgOffset, const u64 *stateOffset, "
    "const double *finite, const u32 *zeros, const double *msg, double *raw, const u32 *active, "
    "u32 count, u32 B, int maxProduct)";

// Shape constants of a group: K, D[], STRIDE[] (row strides, last fastest), SUMD, E.
void shapeConstants(const LoopyFactorGroup &group, std::ostringstream &out) {
    const size_t k = group.domains.size();
    std::vector<uint64_t> stride(k, 1);
    for (size_t p = k - 1; p-- > 0;)
        stride[p] = stride[p + 1] * group.domains[p + 1];
    uint64_t sumD = 0;
    out << "    const int K = " << k << ";\n    const u32 D[K] = {";
    for (size_t p = 0; p < k; ++p) {
        out << (p ? ", " : "") << group.domains[p] << "u";
        sumD += group.domains[p];
    }
    out << "};\n    const u64 STRIDE[K] = {";
    for (size_t p = 0; p < k; ++p)
        out << (p ? ", " : "") << stride[p] << "ull";
    out << "};\n    const u32 SUMD = " << sumD << "u;\n    const u64 E = " << group.entries
        << "ull;\n";
    out << "    (void)STRIDE; (void)E;\n";
}

// Common prologue: the factor, its first edge, each scope variable's first state and message.
const char *kFactorPrologue = R"(    const u32 f = groupFactors[i], e0 = factorEdgeStart[f];
    u64 st[K], me[K];
#pragma unroll
    for (int q = 0; q < K; ++q) {
        st[q] = stateOffset[edgeVar[e0 + q]];
        me[q] = msgOffset[e0 + q];
    }
    const double *phi = logValues + tableOffset[f];
)";

void dataParallelKernel(const LoopyFactorGroup &group, size_t g, std::ostringstream &out) {
    out << "extern \"C\" __global__ void " << loopyGroupKernel(group, g) << kGroupParams << " {\n";
    shapeConstants(group, out);
    out << R"(    const u64 idx = blockIdx.x * (u64)blockDim.x + threadIdx.x;
    if (idx >= (u64)count * SUMD * B)
        return;
    const u32 b = idx % B;
    const u64 rest = idx / B;
    const u32 i = rest / SUMD;
    u32 x = rest % SUMD, p = 0;
    if (!active[b])
        return;
    while (x >= D[p])
        x -= D[p++];
)" << kFactorPrologue
        << R"(    double top = NEG_INF, acc = 0;
    for (u64 r = 0; r < E / D[p]; ++r) { // the other variables' joint states
        u64 rem = r, row = x * STRIDE[p];
        double total = 0;
#pragma unroll
        for (int q = K - 1; q >= 0; --q) {
            if (q == (int)p)
                continue;
            const u32 dq = rem % D[q];
            rem /= D[q];
            row += dq * STRIDE[q];
            total += messageIn(finite, zeros, msg, st[q] + dq, me[q] + dq, B, b);
        }
        const double v = phi[row] + total;
        if (v == NEG_INF)
            continue;
        if (maxProduct) {
            top = fmax(top, v);
        } else if (v > top) { // a running log-sum-exp, rescaled to each new maximum
            acc = acc * exp(top - v) + 1;
            top = v;
        } else {
            acc += exp(v - top);
        }
    }
    raw[(me[p] + x) * B + b] = maxProduct || top == NEG_INF ? top : top + log(acc);
}

)";
}

void cooperativeKernel(const LoopyFactorGroup &group, size_t g, std::ostringstream &out) {
    out << "extern \"C\" __global__ void __launch_bounds__(" << group.threads << ") "
        << loopyGroupKernel(group, g) << kGroupParams << " {\n";
    shapeConstants(group, out);
    out << "    const u32 T = " << group.threads << "u, W = T / 32;\n";
    out << "    (void)count; // the grid is count x B blocks, one per factor and instance\n";
    out << R"(    const u32 b = blockIdx.x % B, i = blockIdx.x / B;
    if (!active[b])
        return;
    extern __shared__ double shared[];
    double *in = shared;          // the messages into the factor, SUMD entries
    double *part = shared + SUMD; // a partial set of outgoing messages per warp
)" << kFactorPrologue
        << R"(    for (u32 j = threadIdx.x; j < SUMD; j += T) {
        u32 x = j, p = 0;
        while (x >= D[p])
            x -= D[p++];
        in[j] = messageIn(finite, zeros, msg, st[p] + x, me[p] + x, B, b);
    }
    for (u32 j = threadIdx.x; j < W * SUMD; j += T)
        part[j] = NEG_INF;
    __syncthreads();
    double *mine = part + (threadIdx.x / 32) * SUMD;
    for (u64 row = threadIdx.x; row < E; row += T) {
        const double v0 = phi[row];
        if (v0 == NEG_INF)
            continue;
        u32 at[K];
        u64 rem = row;
        u32 base = SUMD, zerosIn = 0;
        double total = v0;
#pragma unroll
        for (int q = K - 1; q >= 0; --q) {
            base -= D[q];
            at[q] = base + rem % D[q];
            rem /= D[q];
            const double m = in[at[q]];
            if (m == NEG_INF)
                ++zerosIn;
            else
                total += m;
        }
#pragma unroll
        for (int q = 0; q < K; ++q) {
            const double m = in[at[q]];
            const bool own = m == NEG_INF;
            if (zerosIn > (own ? 1u : 0u))
                continue; // another incoming message rules this entry out
            mergeInto(mine + at[q], own ? total : total - m, maxProduct);
        }
    }
    __syncthreads();
    for (u32 j = threadIdx.x; j < SUMD; j += T) {
        double v = part[j];
        for (u32 w = 1; w < W; ++w)
            v = maxProduct ? fmax(v, part[w * SUMD + j]) : logAdd(v, part[w * SUMD + j]);
        u32 x = j, p = 0;
        while (x >= D[p])
            x -= D[p++];
        raw[(me[p] + x) * B + b] = v;
    }
}

)";
}

} // namespace

std::string loopyGroupKernel(const LoopyFactorGroup &group, size_t g) {
    return (group.design == LoopyGpuDesign::DataParallel ? "lbp_dp_" : "lbp_coop_") +
           std::to_string(g);
}

std::string loopyKernelSource(const LoopyGpuPlan &plan) {
    std::ostringstream out;
    // The batch is a kernel argument, not in the source, so one compiled module (and its NVRTC
    // cache entry) serves every batch size that keeps the same designs.
    out << "// loopy belief propagation: " << plan.groups.size() << " factor group(s)\n"
        << kCommon << "\n";
    for (size_t g = 0; g < plan.groups.size(); ++g) {
        if (plan.groups[g].design == LoopyGpuDesign::DataParallel)
            dataParallelKernel(plan.groups[g], g, out);
        else
            cooperativeKernel(plan.groups[g], g, out);
    }
    return out.str();
}

} // namespace zbddc::cuda
