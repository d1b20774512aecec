#include "backends/tensor/cpu/tensor_cpu.h"
#include "backends/tensor/cpu/message_ops.h"
#include "support/threads.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <memory>
#include <new>
#include <span>
#include <thread>

namespace zbddc {

namespace {

// One op prepared for the loop nest: per input, its base offset (fixed evidence values), its
// stride for each output variable (0 when absent), and the offsets of every joint value of the
// innermost eliminated variables (a block of at most kInnerBlock values); the outer eliminated
// variables, where there are more, are walked by an odometer of their own. The offsets cost as
// much to write as the block to read, so a table of a whole large clique (one case's tree
// reduced to a normaliser) would cost as much as the op and page faults besides.
struct OpPlan {
    const TensorOp *op = nullptr;
    std::vector<const double *> data;
    std::vector<uint64_t> base;
    std::vector<uint64_t> outStride;   // [input * outVars + i]
    std::vector<uint64_t> elimOffset;  // [input * elimCount + m], the inner block
    std::vector<uint64_t> outerStride; // [input * outerDomains.size() + i]
    std::vector<uint32_t> outDomains;
    std::vector<uint32_t> outerDomains; // the outer eliminated variables, last fastest
    uint64_t elimCount = 1;             // values of the inner block
    // Per input, the inner block as runs of runLength values (a suffix of its variables): read
    // contiguously (runUnit 1) or one value broadcast over the run (runUnit 0), each run's start
    // at elimOffset[run * runLength]. Runs of 1 are a gather.
    std::vector<uint64_t> runLength;
    std::vector<uint8_t> runUnit;
    // Ops that sum few values per row (joins among them) run a tile of rows at a time: the
    // output's last variables, tileRows rows from tileFrom on, each input read over the tile at
    // tileOffset (by runs like the inner block's), once per eliminated value. A tiled op has no
    // outer eliminated variables.
    bool tiled = false;
    size_t tileFrom = 0;
    uint64_t tileRows = 1;
    std::vector<uint64_t> tileOffset; // [input * tileRows + x]
    std::vector<uint64_t> tileRunLength;
    std::vector<uint8_t> tileRunUnit;
    // Inputs of one entry (one case's numbers): the same factor in every product, so ⊗-ed once
    // into each output row (⊗ distributes over ⊕) instead of into every product.
    std::vector<const double *> constants;
    double *out = nullptr;
    // The tables behind `data` and `constants`, and the bits of constantKey it was made for: a
    // plan kept from run to run (CpuPlanCache) is pointed at this run's tables through them.
    std::vector<uint32_t> dataTables, constantTables;
    uint64_t constantKey = 0;
    // Message ops (isMessageOp) run through message_ops.h, reading the tables by id.
    const TensorProgram *program = nullptr;
    const std::vector<const double *> *tables = nullptr;

    // Empty again, its buffers kept: a plan is reused op after op (see PlanScratch).
    void reset() {
        for (auto *v : {&base, &outStride, &elimOffset, &outerStride, &runLength, &tileOffset,
                        &tileRunLength})
            v->clear();
        for (auto *v : {&outDomains, &outerDomains})
            v->clear();
        data.clear();
        constants.clear();
        dataTables.clear();
        constantTables.clear();
        constantKey = 0;
        runUnit.clear();
        tileRunUnit.clear();
        op = nullptr;
        out = nullptr;
        program = nullptr;
        tables = nullptr;
        elimCount = 1;
        tiled = false;
        tileFrom = 0;
        tileRows = 1;
    }
};

// The plans of one level and the buffers planOp works in, kept per thread from op to op and run
// to run: one case's sliced junction tree is thousands of ops of a few entries each, and their
// allocations were most of its time (Promedus_30: 1928 ops over 9499 entries for MAR).
struct PlanScratch {
    std::deque<OpPlan> plans; // plans[0 .. used) hold this level's (a deque: they stay in place)
    size_t used = 0;
    std::vector<std::pair<double, uint32_t>> byZeros;
    std::vector<uint32_t> inputs, innerDomains;
    std::vector<uint64_t> strides, innerStrides;

    OpPlan &next() {
        if (used == plans.size())
            plans.emplace_back();
        OpPlan &plan = plans[used++];
        plan.reset();
        return plan;
    }

    // After a level: a level of many large blocks is not held on to for the rest of the thread.
    static constexpr size_t kKeptOffsetBytes = size_t{16} << 20;
    void trim() {
        size_t bytes = 0;
        for (const OpPlan &plan : plans)
            bytes += (plan.elimOffset.capacity() + plan.tileOffset.capacity()) * sizeof(uint64_t);
        if (bytes > kKeptOffsetBytes)
            std::deque<OpPlan>().swap(plans);
    }
};

constexpr uint64_t kInnerBlock = 1 << 12;
constexpr uint64_t kTileRows = 1 << 10;
constexpr uint64_t kTiledSums = 16; // at most this many values summed per row: tiled
// ... or this many in a large op whose inputs are almost free of zeros: runRows reads each
// input only for the products the ones before it left nonzero (a batched tree's evidence
// indicators, a network's deterministic CPTs), the tiles read every product, but step their
// odometer once a tile rather than once a row (Grids_13's MAR: 26 inputs, 32 values a row).
constexpr uint64_t kTiledDenseSums = 256;
constexpr uint64_t kZeroSample = 1 << 12;
// An op of few rows over many eliminated values (a partition function's last sum: one row of
// 2^18 products of 26 tables on Grids_13) would be one chunk on one thread; at least
// kSplitWork entries walked, it is cut into parts of the outer eliminated values of about
// kPartWork each, summed into rows of their own and then ⊕-ed (in part order, so the answer is
// the same on any number of threads).
constexpr uint64_t kSplitRows = uint64_t{1} << 14;
constexpr uint64_t kSplitWork = uint64_t{1} << 22;
constexpr uint64_t kPartWork = uint64_t{1} << 20;
constexpr uint64_t kMostParts = 64;
// Ops walking fewer entries (output rows × eliminated values × inputs) keep their inputs' order
// (no zeros counted) and, where a CpuPlanCache is given, their plans.
constexpr uint64_t kSmallOpWork = uint64_t{1} << 16;

uint64_t opWork(const TensorProgram &p, const TensorOp &op) {
    uint64_t eliminated = 1;
    if (reducesVariables(op.kind))
        for (uint32_t v : op.vars)
            eliminated *= p.domainSizes[v];
    return p.tables[op.output].entries() * eliminated * op.inputs.size();
}

// What planOp's choice of constants reads of the values: bit j set where input j is one entry
// of at most 1 (a product semiring keeps only those out of the loop).
uint64_t constantKeyOf(const TensorProgram &p, const TensorOp &op,
                       const std::vector<const double *> &data) {
    uint64_t key = 0;
    for (size_t j = 0; j < op.inputs.size() && j < 64; ++j)
        if (p.tables[op.inputs[j]].entries() == 1 && *data[op.inputs[j]] <= 1)
            key |= uint64_t{1} << j;
    return key;
}

// Appends to `table` the offsets of the joint values of variables with these strides and
// domains, enumerated last variable fastest.
void appendJointOffsets(std::vector<uint64_t> &table, std::span<const uint64_t> strides,
                        std::span<const uint32_t> domains) {
    const size_t first = table.size();
    table.push_back(0);
    for (size_t i = 0; i < strides.size(); ++i) {
        const size_t n = table.size() - first;
        table.resize(first + n * domains[i]);
        for (size_t k = n; k-- > 0;) // in place, from the back: entry k becomes k*d .. k*d+d-1
            for (uint32_t x = domains[i]; x-- > 0;)
                table[first + k * domains[i] + x] = table[first + k] + x * strides[i];
    }
}

// The runs of such a block: the longest suffix of its variables that the input holds packed,
// last fastest (strides 1, d, ...: unit 1), or holds none of (unit 0).
std::pair<uint64_t, uint8_t> runsOf(std::span<const uint64_t> strides,
                                    std::span<const uint32_t> domains) {
    uint64_t length = 1;
    uint8_t unit = 1;
    for (size_t i = strides.size(); i-- > 0;) {
        if (length == 1 && strides[i] <= 1)
            unit = static_cast<uint8_t>(strides[i]);
        else if (strides[i] != unit * length)
            break;
        length *= domains[i];
    }
    return {length, unit};
}

uint64_t strideOf(const Table &t, const std::vector<uint64_t> &strides, uint32_t v) {
    const auto it = std::find(t.scope.begin(), t.scope.end(), v);
    return it == t.scope.end() ? 0 : strides[it - t.scope.begin()];
}

// tableStrides into `strides`, its buffer kept.
void stridesInto(const Table &t, std::vector<uint64_t> &strides) {
    strides.resize(t.scope.size());
    uint64_t s = 1;
    for (size_t i = t.scope.size(); i-- > 0;) {
        strides[i] = s;
        s *= t.domains[i];
    }
}

// `plan` (reset) made for `op`, in `scratch`'s buffers.
void planOp(OpPlan &plan, PlanScratch &scratch, const TensorProgram &p, const TensorOp &op,
            const std::vector<const double *> &data, double *out) {
    plan.op = &op;
    plan.out = out;
    const Table &o = p.tables[op.output];
    plan.outDomains.assign(o.domains.begin(), o.domains.end());
    const bool eliminates = reducesVariables(op.kind);
    // The inner block: the longest suffix of the eliminated variables within kInnerBlock values
    // (at least one variable).
    size_t innerFrom = eliminates ? op.vars.size() : 0;
    if (eliminates)
        while (innerFrom > 0 &&
               (innerFrom == op.vars.size() ||
                plan.elimCount * p.domainSizes[op.vars[innerFrom - 1]] <= kInnerBlock))
            plan.elimCount *= p.domainSizes[op.vars[--innerFrom]];
    for (size_t i = 0; i < innerFrom; ++i)
        plan.outerDomains.push_back(p.domainSizes[op.vars[i]]);
    // The input with the most zeros first (runRows skips what it zeroes): a batched junction
    // tree's evidence indicators. Counted on at most kZeroSample evenly spaced entries of each
    // input (a pass over every entry would read the inputs as often as the op does); the order
    // changes the product only by rounding.
    const double zero = SemiringOps{p.semiring}.zero();
    std::vector<std::pair<double, uint32_t>> &byZeros = scratch.byZeros;
    byZeros.clear();
    const uint64_t work = opWork(p, op);
    for (uint32_t in : op.inputs) {
        if (work < kSmallOpWork) { // small ops: counting would cost more than it saves
            byZeros.push_back({0.0, in});
            continue;
        }
        const uint64_t n = p.tables[in].entries();
        const uint64_t step = std::max<uint64_t>(1, n / kZeroSample);
        uint64_t zeros = 0, seen = 0;
        for (uint64_t i = 0; i < n; i += step, ++seen)
            zeros += data[in][i] == zero;
        byZeros.push_back(
            {-static_cast<double>(zeros) / static_cast<double>(std::max<uint64_t>(seen, 1)), in});
    }
    std::stable_sort(byZeros.begin(), byZeros.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<uint32_t> &inputs = scratch.inputs;
    inputs.clear();
    const bool varying = std::any_of(byZeros.begin(), byZeros.end(),
                                     [&](const auto &z) { return p.tables[z.second].entries() > 1; });
    // Under a product, only factors of at most 1: a batched tree's scale of one case (up to
    // 1 / 10^-300) must meet its message inside the product, before several small ones
    // underflow.
    const bool product = p.semiring == Semiring::SumProduct || p.semiring == Semiring::MaxProduct;
    for (const auto &[fraction, in] : byZeros)
        if (p.tables[in].entries() == 1 && (varying || !inputs.empty()) && // one stays in the loop
            (!product || *data[in] <= 1)) {
            plan.constants.push_back(data[in]);
            plan.constantTables.push_back(in);
        } else {
            inputs.push_back(in);
        }
    const size_t k = o.scope.size();
    // (zeros are counted in large ops only; a tile of few rows would step through the
    // eliminated values a few products at a time)
    const bool dense = work >= kSmallOpWork && -byZeros.front().first < 1.0 / 16 &&
                       o.entries() >= kTileRows;
    plan.tiled = k > 0 && innerFrom == 0 &&
                 plan.elimCount <= (dense ? kTiledDenseSums : kTiledSums);
    plan.tileFrom = plan.tiled ? k - 1 : k; // at least the last variable
    for (plan.tileRows = plan.tiled ? o.domains[k - 1] : 1;
         plan.tiled && plan.tileFrom > 0 &&
         plan.tileRows * o.domains[plan.tileFrom - 1] <= kTileRows;)
        plan.tileRows *= o.domains[--plan.tileFrom];
    const std::span<const uint32_t> tileDomains(o.domains.data() + plan.tileFrom, k - plan.tileFrom);
    for (uint32_t in : inputs) {
        const Table &t = p.tables[in];
        std::vector<uint64_t> &strides = scratch.strides;
        stridesInto(t, strides);
        plan.data.push_back(data[in]);
        plan.dataTables.push_back(in);
        uint64_t base = 0;
        if (op.kind == TensorOpKind::SliceEvidence)
            for (size_t i = 0; i < op.vars.size(); ++i)
                base += op.values[i] * strideOf(t, strides, op.vars[i]);
        plan.base.push_back(base);
        for (uint32_t v : o.scope)
            plan.outStride.push_back(strideOf(t, strides, v));
        for (size_t i = 0; i < innerFrom; ++i)
            plan.outerStride.push_back(strideOf(t, strides, op.vars[i]));
        std::vector<uint64_t> &innerStrides = scratch.innerStrides;
        std::vector<uint32_t> &innerDomains = scratch.innerDomains;
        innerStrides.clear();
        innerDomains.clear();
        for (size_t i = innerFrom; eliminates && i < op.vars.size(); ++i) { // a slice's are fixed
            innerStrides.push_back(strideOf(t, strides, op.vars[i]));
            innerDomains.push_back(p.domainSizes[op.vars[i]]);
        }
        appendJointOffsets(plan.elimOffset, innerStrides, innerDomains);
        const auto [length, unit] = runsOf(innerStrides, innerDomains);
        plan.runLength.push_back(length);
        plan.runUnit.push_back(unit);
        if (plan.tiled) {
            const std::span<const uint64_t> tileStrides(plan.outStride.data() + plan.outStride.size() -
                                                            tileDomains.size(),
                                                        tileDomains.size());
            appendJointOffsets(plan.tileOffset, tileStrides, tileDomains);
            const auto [tileLength, tileUnit] = runsOf(tileStrides, tileDomains);
            plan.tileRunLength.push_back(tileLength);
            plan.tileRunUnit.push_back(tileUnit);
        }
    }
}

// Each semiring's arithmetic on its value type V; load/store convert the 8-byte table entries
// (MinSumInt64 keeps an int64's bit pattern in each).
template <Semiring S> struct Ring : EntryWord<double> {
    using V = double;
    static constexpr bool product = S == Semiring::SumProduct || S == Semiring::MaxProduct;
    static V zero() { return SemiringOps{S}.zero(); }
    static V times(V a, V b) { return product ? a * b : a + b; }
    static V plus(V a, V b) {
        if constexpr (S == Semiring::SumProduct)
            return a + b;
        else if constexpr (S == Semiring::MinSum)
            return b < a ? b : a;
        else
            return b > a ? b : a;
    }
};

template <> struct Ring<Semiring::MinSumInt64> : EntryWord<int64_t> {
    using V = int64_t;
    static constexpr bool product = false;
    static V zero() { return kInt64Forbidden; }
    static V times(V a, V b) { return saturatingCostSum(a, b); }
    static V plus(V a, V b) { return b < a ? b : a; }
};

// partial[e] = (First ? load : partial[e] ⊗ load) of an input's values at d + offsets[e] for
// e < count, read run by run (planOp's runsOf): a contiguous or broadcast loop the compiler
// vectorises, in place of a gather through the offsets.
template <class R, bool First>
void applyRuns(const double *d, const uint64_t *offsets, uint64_t count, uint64_t length,
               uint8_t unit, typename R::V *partial) {
    using V = typename R::V;
    auto apply = [&](V *p, uint64_t x, V v) { p[x] = First ? v : R::times(p[x], v); };
    if (unit == 1 && length > 1)
        for (uint64_t r = 0; r < count; r += length) {
            const double *b = d + offsets[r];
            V *p = partial + r;
            for (uint64_t x = 0; x < length; ++x)
                apply(p, x, R::load(b[x]));
        }
    else if (length > 1)
        for (uint64_t r = 0; r < count; r += length) {
            const V v = R::load(d[offsets[r]]);
            V *p = partial + r;
            for (uint64_t x = 0; x < length; ++x)
                apply(p, x, v);
        }
    else
        for (uint64_t e = 0; e < count; ++e)
            apply(partial, e, R::load(d[offsets[e]]));
}

// Input j over the inner block of eliminated values.
template <class R, bool First>
void applyInput(const OpPlan &plan, size_t j, const double *d, typename R::V *partial) {
    const uint64_t m = plan.elimCount;
    applyRuns<R, First>(d, plan.elimOffset.data() + j * m, m, plan.runLength[j], plan.runUnit[j],
                        partial);
}

// Whether a value the same in every product of a block may be ⊗-ed into the block's sum
// afterwards. Under a product, a zero (the block is skipped) or a factor within 2^±64 of 1: the
// products without it are then at most 2^64 from what they would have been, where a batched
// tree's scale of one case (up to 10^300) must meet its small message inside the product
// before several small ones underflow (planOp's constants rule).
template <class R> bool foldable(double stored) {
    if constexpr (!R::product)
        return true;
    const double v = R::load(stored);
    return v == 0 || (v >= 0x1p-64 && v <= 0x1p64);
}

// Whether every run of `length` values of input j over the block (one value each, runUnit 0) is
// foldable<R>.
template <class R> bool foldableRuns(const OpPlan &plan, size_t j, uint64_t at, uint64_t length) {
    if constexpr (!R::product)
        return true;
    const uint64_t m = plan.elimCount;
    const double *d = plan.data[j] + at;
    const uint64_t *eo = plan.elimOffset.data() + j * m;
    for (uint64_t g = 0; g < m; g += length)
        if (!foldable<R>(d[eo[g]]))
            return false;
    return true;
}

// Whether input j is one foldable<R> value over the whole block at `at` (the block's scale,
// innerBlock).
template <class R> bool wholeBlock(const OpPlan &plan, size_t j, uint64_t at) {
    const uint64_t m = plan.elimCount;
    return plan.runUnit[j] == 0 && plan.runLength[j] == m &&
           foldable<R>(plan.data[j][at + plan.elimOffset[j * m]]);
}

// ⊕ of partial[0 .. m) in four interleaved sums (they vectorise; the sum's rounding differs
// from one running sum only within m ulps).
template <class R> typename R::V plusAll(const typename R::V *partial, uint64_t m) {
    using V = typename R::V;
    V acc[4] = {R::zero(), R::zero(), R::zero(), R::zero()};
    uint64_t e = 0;
    for (; e + 4 <= m; e += 4)
        for (int l = 0; l < 4; ++l)
            acc[l] = R::plus(acc[l], partial[e + l]);
    for (; e < m; ++e)
        acc[0] = R::plus(acc[0], partial[e]);
    return R::plus(R::plus(acc[0], acc[1]), R::plus(acc[2], acc[3]));
}

// ⊕ over the block of the product whose input `first` is in partial[0 .. m), its inputs
// after `first` multiplied in by levels. An input that holds none of the block's last variables
// is one value over each aligned run of runLength values (runsOf; the runs of every such input
// nest, their lengths products of the same last domains): it is ⊗-ed in after the partial
// products are ⊕-ed over its runs, once a run rather than once a value (⊗ distributes over ⊕;
// Bucket elimination's sum, Dechter 1999, inside one block). Only values foldable<R> are taken
// out so (an input with another stays in the products). Alchemy_11: 432 inputs of a 4,096-value
// block, most of them over its first variables.
template <class R>
typename R::V levelledSum(const OpPlan &plan, const uint64_t *at, typename R::V *partial,
                          size_t first, std::vector<std::pair<uint64_t, size_t>> &coarse) {
    const size_t nin = plan.data.size();
    const uint64_t m = plan.elimCount;
    coarse.clear();
    for (size_t j = first + 1; j < nin; ++j) {
        if (wholeBlock<R>(plan, j, at[j]))
            continue; // the block's scale (innerBlock)
        const uint64_t length = plan.runLength[j];
        if (plan.runUnit[j] == 0 && length > 1 && foldableRuns<R>(plan, j, at[j], length))
            coarse.push_back({length, j});
        else
            applyInput<R, false>(plan, j, plan.data[j] + at[j], partial);
    }
    std::stable_sort(coarse.begin(), coarse.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    uint64_t width = 1; // partial[g] is the ⊕ of run g of `width` values
    for (const auto &[length, j] : coarse) {
        if (length > width) {
            const uint64_t k = length / width, runs = m / length;
            for (uint64_t g = 0; g < runs; ++g) // in place: g reads g * k .. g * k + k - 1
                partial[g] = plusAll<R>(partial + g * k, k);
            width = length;
        }
        const double *d = plan.data[j] + at[j];
        const uint64_t *eo = plan.elimOffset.data() + j * m;
        for (uint64_t g = 0, runs = m / length; g < runs; ++g)
            partial[g] = R::times(partial[g], R::load(d[eo[g * length]]));
    }
    return plusAll<R>(partial, m / width);
}

// ⊕ over one block of eliminated values of ⊗ inputs, each input read at `at[j]` plus the
// block's offsets. `partial` and `live` hold elimCount values. An input of one value over the
// whole block (a factor on outer or output variables alone) is ⊗-ed into the block's sum once,
// and a zero there skips the block.
template <class R>
typename R::V innerBlock(const OpPlan &plan, const uint64_t *at, typename R::V *partial,
                         uint64_t *live, std::vector<std::pair<uint64_t, size_t>> &coarse) {
    using V = typename R::V;
    const size_t nin = plan.data.size();
    const uint64_t m = plan.elimCount;
    const V zero = R::zero();
    auto whole = [&](size_t j) { return wholeBlock<R>(plan, j, at[j]); };
    V scale{};
    bool scaled = false;
    size_t first = nin; // the first input read value by value
    for (size_t j = 0; j < nin; ++j)
        if (whole(j)) {
            const V v = R::load(plan.data[j][at[j] + plan.elimOffset[j * m]]);
            scale = scaled ? R::times(scale, v) : v;
            scaled = true;
        } else if (first == nin) {
            first = j;
        }
    if (scaled && scale == zero)
        return zero;
    if (first == nin) { // every input one value over the block
        std::fill(partial, partial + m, scale);
        return plusAll<R>(partial, m);
    }
    auto scaledSum = [&](V sum) { return scaled ? R::times(sum, scale) : sum; };
    applyInput<R, true>(plan, first, plan.data[first] + at[first], partial);
    uint64_t alive = 0;
    for (uint64_t e = 0; e < m; ++e) { // without a branch: the zeros follow no pattern
        live[alive] = e;
        alive += partial[e] != zero;
    }
    if (2 * alive > m)
        return scaledSum(levelledSum<R>(plan, at, partial, first, coarse));
    for (size_t j = first + 1; j < nin && alive > 0; ++j) {
        if (whole(j))
            continue;
        const double *d = plan.data[j] + at[j];
        const uint64_t *eo = plan.elimOffset.data() + j * m;
        uint64_t kept = 0;
        for (uint64_t t = 0; t < alive; ++t) {
            const uint64_t e = live[t];
            partial[e] = R::times(partial[e], R::load(d[eo[e]]));
            if (partial[e] != zero)
                live[kept++] = e;
        }
        alive = kept;
    }
    V acc = zero;
    for (uint64_t t = 0; t < alive; ++t)
        acc = R::plus(acc, partial[live[t]]);
    return scaledSum(acc);
}

// A mixed-radix counter over `domains` (the last digit fastest) that moves each input's offset
// with it: when digit i steps, input j moves by stride[j * width + i].
struct Odometer {
    std::span<const uint32_t> domains;
    const uint64_t *stride;
    size_t width;
    std::vector<uint32_t> &digit; // a buffer of the caller's, set to 0s here

    Odometer(std::span<const uint32_t> domains, const uint64_t *stride, size_t width,
             std::vector<uint32_t> &digit)
        : domains(domains), stride(stride), width(width), digit(digit) {
        digit.assign(domains.size(), 0);
    }

    // Sets the digits to `index` and moves the offsets by them.
    void seek(uint64_t index, std::span<uint64_t> off) {
        for (size_t i = domains.size(); i-- > 0;) {
            digit[i] = static_cast<uint32_t>(index % domains[i]);
            index /= domains[i];
            for (size_t j = 0; j < off.size(); ++j)
                off[j] += digit[i] * stride[j * width + i];
        }
    }
    // One step; false when every digit wrapped back to 0 (the offsets back where they began).
    bool step(std::span<uint64_t> off) {
        for (size_t i = domains.size(); i-- > 0;) {
            for (size_t j = 0; j < off.size(); ++j)
                off[j] += stride[j * width + i];
            if (++digit[i] < domains[i])
                return true;
            for (size_t j = 0; j < off.size(); ++j)
                off[j] -= uint64_t{domains[i]} * stride[j * width + i];
            digit[i] = 0;
        }
        return false;
    }
};

// The buffers of a chunk's loops, kept per thread from chunk to chunk (as PlanScratch's).
template <class V> struct RowBuffers {
    std::vector<V> partial, sum;
    std::vector<uint64_t> off, at, live;
    std::vector<std::pair<uint64_t, size_t>> coarse; // levelledSum's
    std::vector<uint32_t> outDigits, outerDigits;
};

// Output rows [begin, end) of a tiled op (planOp), a tile of rows at a time: per eliminated
// value, each input multiplied into the tile by its runs, then ⊕-ed into the tile's sums, so
// that the odometer steps once per tile and the inner loops run over rows.
template <class R> void tiledRows(const OpPlan &plan, uint64_t begin, uint64_t end) {
    using V = typename R::V;
    const size_t k = plan.outDomains.size(), nin = plan.data.size(), q = plan.tileFrom;
    const uint64_t rows = plan.tileRows, m = plan.elimCount;
    thread_local RowBuffers<V> buffers;
    std::vector<uint64_t> &off = buffers.off;
    off.assign(plan.base.begin(), plan.base.end());
    uint64_t start = begin - begin % rows;
    Odometer tiles{std::span(plan.outDomains).first(q), plan.outStride.data(), k,
                   buffers.outDigits};
    tiles.seek(start / rows, off);
    std::vector<V> &partial = buffers.partial, &sum = buffers.sum;
    partial.resize(rows);
    sum.resize(m > 1 ? rows : 0);
    for (; start < end; start += rows) {
        for (uint64_t e = 0; e < m; ++e) {
            // An input of one value over the whole tile (a factor on eliminated variables, or on
            // output variables outside the tile) is ⊗-ed into one scale, not into every row.
            V scale{};
            bool scaled = false, first = true;
            for (size_t j = 0; j < nin; ++j) {
                const double *d = plan.data[j] + off[j] + plan.elimOffset[j * m + e];
                const uint64_t *to = plan.tileOffset.data() + j * rows;
                if (plan.tileRunUnit[j] == 0 && plan.tileRunLength[j] == rows &&
                    foldable<R>(d[to[0]])) {
                    const V v = R::load(d[to[0]]);
                    scale = scaled ? R::times(scale, v) : v;
                    scaled = true;
                } else if (first) {
                    applyRuns<R, true>(d, to, rows, plan.tileRunLength[j], plan.tileRunUnit[j],
                                       partial.data());
                    first = false;
                } else {
                    applyRuns<R, false>(d, to, rows, plan.tileRunLength[j], plan.tileRunUnit[j],
                                        partial.data());
                }
            }
            if (first) // every input one value over the tile
                std::fill(partial.begin(), partial.end(), scale);
            else if (scaled && m == 1)
                for (uint64_t x = 0; x < rows; ++x)
                    partial[x] = R::times(partial[x], scale);
            if (m == 1)
                break;
            if (scaled && !first)
                for (uint64_t x = 0; x < rows; ++x)
                    sum[x] = e == 0 ? R::times(partial[x], scale)
                                    : R::plus(sum[x], R::times(partial[x], scale));
            else
                for (uint64_t x = 0; x < rows; ++x)
                    sum[x] = e == 0 ? partial[x] : R::plus(sum[x], partial[x]);
        }
        V *result = m == 1 ? partial.data() : sum.data();
        for (const double *c : plan.constants)
            for (uint64_t x = 0; x < rows; ++x)
                result[x] = R::times(result[x], R::load(*c));
        const uint64_t from = std::max(start, begin), to = std::min(start + rows, end);
        for (uint64_t row = from; row < to; ++row)
            plan.out[row] = R::store(result[row - start]);
        tiles.step(off);
    }
}

// Outer eliminated values [first, last) of every row, ⊕-ed into rows of their own (`into`,
// indexed from the chunk's first row) without the op's constants: one part of a split op.
struct OuterPart {
    uint64_t first = 0, last = 0;
    double *into = nullptr;
};

// Output rows [begin, end) of one op, or with `part` one part of them.
template <Semiring S>
void runRows(const OpPlan &plan, uint64_t begin, uint64_t end, const OuterPart *part = nullptr) {
    using R = Ring<S>;
    if (plan.tiled) {
        tiledRows<R>(plan, begin, end);
        return;
    }
    const size_t k = plan.outDomains.size();
    const size_t nin = plan.data.size();
    const uint64_t m = plan.elimCount;
    using V = typename R::V;
    thread_local RowBuffers<V> buffers;
    std::vector<uint64_t> &off = buffers.off;
    off.assign(plan.base.begin(), plan.base.end());
    Odometer output{plan.outDomains, plan.outStride.data(), k, buffers.outDigits};
    output.seek(begin, off);
    // Inputs outermost, eliminated values innermost: each input's group of rows for one output
    // row is read in one sweep (contiguous when the eliminated variable is fastest, Bistaffa et al.
    // 2017 §III-A).
    //
    // The semiring's zero absorbs ⊗ and is the identity of ⊕, so once a partial product is zero
    // the other inputs need not be read for it. The smallest input comes first (planOp): in a
    // batched junction tree that is an evidence indicator, which leaves one state of its
    // variable per case; where it leaves at most half the products, the other inputs are read
    // only for the live ones.
    std::vector<V> &partial = buffers.partial;
    std::vector<uint64_t> &live = buffers.live;
    partial.resize(m);
    live.resize(m);
    const V zero = R::zero();
    Odometer outer{plan.outerDomains, plan.outerStride.data(), plan.outerDomains.size(),
                   buffers.outerDigits};
    std::vector<uint64_t> &at = buffers.at; // each input's offset: the row's plus the outer's
    at.resize(nin);
    for (uint64_t row = begin; row < end; ++row) {
        V acc = zero;
        at.assign(off.begin(), off.end());
        if (part) {
            outer.seek(part->first, at);
            for (uint64_t b = part->first; b < part->last; ++b, outer.step(at))
                acc = R::plus(acc, innerBlock<R>(plan, at.data(), partial.data(), live.data(),
                                                 buffers.coarse));
            part->into[row - begin] = R::store(acc);
            output.step(off);
            continue;
        }
        do // until every outer digit wrapped: the last block
            acc = R::plus(
                acc, innerBlock<R>(plan, at.data(), partial.data(), live.data(), buffers.coarse));
        while (outer.step(at));
        for (const double *c : plan.constants)
            acc = R::times(acc, R::load(*c));
        plan.out[row] = R::store(acc);
        output.step(off);
    }
}

// runRows of each semiring, indexed by the Semiring's value.
constexpr void (*kRunRows[])(const OpPlan &, uint64_t, uint64_t, const OuterPart *) = {
    runRows<Semiring::SumProduct>, runRows<Semiring::MaxProduct>, runRows<Semiring::MaxSum>,
    runRows<Semiring::MinSum>, runRows<Semiring::MinSumInt64>};
static_assert(static_cast<size_t>(Semiring::MinSumInt64) + 1 == std::size(kRunRows));

// InverseMax is the max of a product semiring, inverted.
Semiring rowSemiring(Semiring s, const OpPlan &plan) {
    return plan.op->kind == TensorOpKind::InverseMax ? Semiring::MaxProduct : s;
}

void invertMax(const OpPlan &plan, uint64_t begin, uint64_t end) {
    for (uint64_t row = begin; row < end; ++row)
        plan.out[row] = plan.out[row] > 0 ? 1 / plan.out[row] : 1;
}

struct Chunk {
    const OpPlan *plan;
    uint64_t begin, end;
    OuterPart part; // part.into set: one part of a split op
};

void runChunk(Semiring s, const Chunk &c) {
    const OpPlan &plan = *c.plan;
    if (isMessageOp(plan.op->kind)) {
        runMessageOpRows(*plan.program, *plan.op, *plan.tables, plan.out + c.begin, c.begin, c.end);
        return;
    }
    kRunRows[static_cast<size_t>(rowSemiring(s, plan))](plan, c.begin, c.end,
                                                        c.part.into ? &c.part : nullptr);
    if (!c.part.into && plan.op->kind == TensorOpKind::InverseMax)
        invertMax(plan, c.begin, c.end);
}

// The joint values of an op's outer eliminated variables.
uint64_t outerValues(const OpPlan &plan) {
    uint64_t outer = 1;
    for (uint32_t d : plan.outerDomains)
        outer *= d;
    return outer;
}

// The parts a large op of few rows is cut into (1: not cut).
uint64_t outerParts(const OpPlan &plan, uint64_t rows, uint64_t work) {
    if (plan.tiled || isMessageOp(plan.op->kind) || rows > kSplitRows || work < kSplitWork)
        return 1;
    return std::min({outerValues(plan), work / kPartWork, kMostParts});
}

// A split op's rows: its parts' sums ⊕-ed in part order, then its constants.
template <Semiring S>
void joinParts(const OpPlan &plan, uint64_t rows, const double *parts, uint64_t count) {
    using R = Ring<S>;
    for (uint64_t row = 0; row < rows; ++row) {
        typename R::V acc = R::load(parts[row]);
        for (uint64_t p = 1; p < count; ++p)
            acc = R::plus(acc, R::load(parts[p * rows + row]));
        for (const double *c : plan.constants)
            acc = R::times(acc, R::load(*c));
        plan.out[row] = R::store(acc);
    }
}

constexpr void (*kJoinParts[])(const OpPlan &, uint64_t, const double *, uint64_t) = {
    joinParts<Semiring::SumProduct>, joinParts<Semiring::MaxProduct>, joinParts<Semiring::MaxSum>,
    joinParts<Semiring::MinSum>, joinParts<Semiring::MinSumInt64>};
static_assert(std::size(kJoinParts) == std::size(kRunRows));

} // namespace

struct CpuPlanCache::Entries {
    std::vector<std::unique_ptr<OpPlan>> byOp; // by op id; null: not planned yet
};
CpuPlanCache::CpuPlanCache() : entries(std::make_unique<Entries>()) {}
CpuPlanCache::~CpuPlanCache() = default;

namespace {

// Op o's plan: the cache's, pointed at this run's tables, where it was made for the same
// constants; else made anew (and kept, for a small op).
const OpPlan &planOf(PlanScratch &scratch, CpuPlanCache *cache, const TensorProgram &program,
                     uint32_t o, const std::vector<const double *> &data, double *out) {
    const TensorOp &op = program.ops[o];
    if (!cache || isMessageOp(op.kind) || opWork(program, op) >= kSmallOpWork) {
        OpPlan &plan = scratch.next();
        if (isMessageOp(op.kind)) {
            plan.op = &op;
            plan.out = out;
            plan.program = &program;
            plan.tables = &data;
        } else {
            planOp(plan, scratch, program, op, data, out);
        }
        return plan;
    }
    std::vector<std::unique_ptr<OpPlan>> &byOp = cache->entries->byOp;
    byOp.resize(program.ops.size());
    std::unique_ptr<OpPlan> &kept = byOp[o];
    const uint64_t key = constantKeyOf(program, op, data);
    if (kept && kept->constantKey == key) {
        kept->out = out;
        for (size_t j = 0; j < kept->data.size(); ++j)
            kept->data[j] = data[kept->dataTables[j]];
        for (size_t j = 0; j < kept->constants.size(); ++j)
            kept->constants[j] = data[kept->constantTables[j]];
        return *kept;
    }
    if (!kept)
        kept = std::make_unique<OpPlan>();
    kept->reset();
    planOp(*kept, scratch, program, op, data, out);
    kept->constantKey = key;
    return *kept;
}

} // namespace

Status runTensorOpsCpu(const TensorProgram &program, std::span<const uint32_t> ops,
                       std::vector<const double *> &data,
                       std::vector<std::vector<double>> &computed, unsigned threads,
                       CpuPlanCache *cache) {
    threads = threadsOrCores(threads);
    // The calling thread's buffers, named here: the workers below read these, not their own.
    thread_local PlanScratch threadScratch;
    thread_local std::vector<Chunk> threadChunks;
    thread_local std::vector<std::vector<double>> threadParts; // per split op, its parts' rows
    PlanScratch &scratch = threadScratch;
    std::vector<Chunk> &chunks = threadChunks;
    std::vector<std::vector<double>> &parts = threadParts;
    struct Split {
        const OpPlan *plan;
        uint64_t rows, count;
    };
    std::vector<Split> splits;
    try {
        scratch.used = 0;
        chunks.clear();
        uint64_t work = 0;
        for (uint32_t o : ops) {
            const TensorOp &op = program.ops[o];
            for (uint32_t in : op.inputs)
                if (!data[in])
                    return error("internal error: op " + std::to_string(o) + " reads table " +
                                 std::to_string(in) + ", which is not on the host");
            std::vector<double> &out = computed[op.output];
            out.resize(program.tables[op.output].entries());
            data[op.output] = out.data();
            const OpPlan &plan = planOf(scratch, cache, program, o, data, out.data());
            const uint64_t rows = out.size();
            const uint64_t opWalks = opWork(program, op);
            work += opWalks;
            if (const uint64_t count = outerParts(plan, rows, opWalks); count > 1) {
                if (parts.size() <= splits.size())
                    parts.resize(splits.size() + 1);
                std::vector<double> &rowsOfParts = parts[splits.size()];
                rowsOfParts.resize(count * rows);
                const uint64_t outer = outerValues(plan);
                for (uint64_t p = 0; p < count; ++p)
                    chunks.push_back({&plan,
                                      0,
                                      rows,
                                      {outer * p / count, outer * (p + 1) / count,
                                       rowsOfParts.data() + p * rows}});
                splits.push_back({&plan, rows, count});
                continue;
            }
            uint64_t per = std::max<uint64_t>(4096, rows / (8 * threads) + 1);
            const uint64_t tile = plan.tileRows; // chunks of whole tiles
            per = (per + tile - 1) / tile * tile;
            for (uint64_t b = 0; b < rows; b += per)
                chunks.push_back({&plan, b, std::min(rows, b + per), {}});
        }
        std::atomic<size_t> next{0};
        auto worker = [&] {
            for (size_t c; (c = next.fetch_add(1)) < chunks.size();)
                runChunk(program.semiring, chunks[c]);
        };
        // Small levels run inline: a thread start costs more than ~10^5 table reads.
        const unsigned n = work < (1u << 17) ? 1 : std::min<unsigned>(threads, chunks.size());
        onThreads(n, [&](size_t) { worker(); });
        for (size_t i = 0; i < splits.size(); ++i) {
            const OpPlan &plan = *splits[i].plan;
            kJoinParts[static_cast<size_t>(rowSemiring(program.semiring, plan))](
                plan, splits[i].rows, parts[i].data(), splits[i].count);
            if (plan.op->kind == TensorOpKind::InverseMax)
                invertMax(plan, 0, splits[i].rows);
        }
        scratch.trim();
    } catch (const std::bad_alloc &) {
        return error("out of host memory while running the tensor program");
    }
    return Ok{};
}

Result<std::vector<double>> denseInputValues(const Table &table) {
    try {
        return table.denseValues();
    } catch (const std::bad_alloc &) {
        return error("out of host memory while expanding a sparse table");
    }
}

Result<std::vector<std::vector<double>>> denseInputTables(const TensorProgram &program) {
    std::vector<std::vector<double>> inputs(program.tables.size());
    for (size_t t = 0; t < program.tables.size(); ++t)
        if (program.tables[t].input) {
            auto dense = denseInputValues(program.tables[t]);
            if (!dense)
                return dense.error();
            inputs[t] = std::move(*dense);
        }
    return inputs;
}

Result<std::vector<std::vector<double>>> runTensorProgramCpu(const TensorProgram &program,
                                                             const CpuExecOptions &options) {
    if (Status s = options.verified ? Status(Ok{}) : program.verify(); !s)
        return s.error();
    std::vector<std::vector<double>> computed(program.tables.size());
    std::vector<std::vector<double>> densified(program.tables.size()); // sparse inputs, complete
    std::vector<const double *> data(program.tables.size(), nullptr);
    for (size_t t = 0; t < program.tables.size(); ++t) {
        const Table &tab = program.tables[t];
        if (!tab.input)
            continue;
        if (tab.sparse) {
            auto dense = denseInputValues(tab);
            if (!dense)
                return dense.error();
            densified[t] = std::move(*dense);
            data[t] = densified[t].data();
        } else {
            data[t] = tab.values.data();
        }
    }
    for (const auto &level : program.levels)
        if (Status s = runTensorOpsCpu(program, level, data, computed, options.threads); !s)
            return s.error();
    return computed;
}

} // namespace zbddc
