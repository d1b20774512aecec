#include "backends/tensor/cpu/tensor_cpu.h"
#include "backends/tensor/cpu/message_ops.h"
#include "support/threads.h"

#include <algorithm>
#include <atomic>
#include <new>
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
    // Inputs of one entry (one case's numbers): the same factor in every product, so ⊗-ed once
    // into each output row (⊗ distributes over ⊕) instead of into every product.
    std::vector<const double *> constants;
    double *out = nullptr;
    // Message ops (isMessageOp) run through message_ops.h, reading the tables by id.
    const TensorProgram *program = nullptr;
    const std::vector<const double *> *tables = nullptr;
};

constexpr uint64_t kInnerBlock = 1 << 12;

uint64_t strideOf(const Table &t, const std::vector<uint64_t> &strides, uint32_t v) {
    const auto it = std::find(t.scope.begin(), t.scope.end(), v);
    return it == t.scope.end() ? 0 : strides[it - t.scope.begin()];
}

OpPlan planOp(const TensorProgram &p, const TensorOp &op, const std::vector<const double *> &data,
              double *out) {
    OpPlan plan;
    plan.op = &op;
    plan.out = out;
    const Table &o = p.tables[op.output];
    plan.outDomains = o.domains;
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
    uint64_t outerCount = 1;
    for (uint32_t d : plan.outerDomains)
        outerCount *= d;
    // The input with the most zeros first (runRows skips what it zeroes): a batched junction
    // tree's evidence indicators. One pass over each input; the order changes the product only
    // by rounding.
    const double zero = SemiringOps{p.semiring}.zero();
    std::vector<std::pair<double, uint32_t>> byZeros;
    const uint64_t work = o.entries() * plan.elimCount * outerCount * op.inputs.size();
    for (uint32_t in : op.inputs) {
        if (work < (uint64_t{1} << 16)) { // small ops: counting would cost more than it saves
            byZeros.push_back({0.0, in});
            continue;
        }
        const uint64_t n = p.tables[in].entries();
        const uint64_t zeros = static_cast<uint64_t>(std::count(data[in], data[in] + n, zero));
        byZeros.push_back(
            {-static_cast<double>(zeros) / static_cast<double>(std::max<uint64_t>(n, 1)), in});
    }
    std::stable_sort(byZeros.begin(), byZeros.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<uint32_t> inputs;
    const bool varying = std::any_of(byZeros.begin(), byZeros.end(),
                                     [&](const auto &z) { return p.tables[z.second].entries() > 1; });
    // Under a product, only factors of at most 1: a batched tree's scale of one case (up to
    // 1 / 10^-300) must meet its message inside the product, before several small ones
    // underflow.
    const bool product = p.semiring == Semiring::SumProduct || p.semiring == Semiring::MaxProduct;
    for (const auto &[fraction, in] : byZeros)
        if (p.tables[in].entries() == 1 && (varying || !inputs.empty()) && // one stays in the loop
            (!product || *data[in] <= 1))
            plan.constants.push_back(data[in]);
        else
            inputs.push_back(in);
    for (uint32_t in : inputs) {
        const Table &t = p.tables[in];
        const std::vector<uint64_t> strides = tableStrides(t);
        plan.data.push_back(data[in]);
        uint64_t base = 0;
        if (op.kind == TensorOpKind::SliceEvidence)
            for (size_t i = 0; i < op.vars.size(); ++i)
                base += op.values[i] * strideOf(t, strides, op.vars[i]);
        plan.base.push_back(base);
        for (uint32_t v : o.scope)
            plan.outStride.push_back(strideOf(t, strides, v));
        for (size_t i = 0; i < innerFrom; ++i)
            plan.outerStride.push_back(strideOf(t, strides, op.vars[i]));
        // Offsets of the inner block's joint values, enumerated last variable fastest.
        const size_t first = plan.elimOffset.size();
        plan.elimOffset.push_back(0);
        for (size_t i = innerFrom; i < op.vars.size(); ++i) {
            const uint64_t stride = strideOf(t, strides, op.vars[i]);
            const uint32_t d = p.domainSizes[op.vars[i]];
            const size_t n = plan.elimOffset.size() - first;
            plan.elimOffset.resize(first + n * d);
            for (size_t k = n; k-- > 0;) // in place, from the back: entry k becomes k*d .. k*d+d-1
                for (uint32_t x = d; x-- > 0;)
                    plan.elimOffset[first + k * d + x] = plan.elimOffset[first + k] + x * stride;
        }
    }
    return plan;
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
    static V zero() { return kInt64Forbidden; }
    static V times(V a, V b) { return saturatingCostSum(a, b); }
    static V plus(V a, V b) { return b < a ? b : a; }
};

// ⊕ over one block of eliminated values of ⊗ inputs, each input read at `at[j]` plus the
// block's offsets. `partial` and `live` hold elimCount values.
template <class R>
typename R::V innerBlock(const OpPlan &plan, const uint64_t *at, typename R::V *partial,
                         uint64_t *live) {
    using V = typename R::V;
    const size_t nin = plan.data.size();
    const uint64_t m = plan.elimCount;
    const V zero = R::zero();
    const double *first = plan.data[0] + at[0];
    uint64_t alive = 0;
    for (uint64_t e = 0; e < m; ++e) {
        partial[e] = R::load(first[plan.elimOffset[e]]);
        if (partial[e] != zero)
            live[alive++] = e;
    }
    V acc = zero;
    if (2 * alive > m) {
        for (size_t j = 1; j < nin; ++j) {
            const double *d = plan.data[j] + at[j];
            const uint64_t *eo = plan.elimOffset.data() + j * m;
            for (uint64_t e = 0; e < m; ++e)
                partial[e] = R::times(partial[e], R::load(d[eo[e]]));
        }
        acc = partial[0];
        for (uint64_t e = 1; e < m; ++e)
            acc = R::plus(acc, partial[e]);
    } else {
        for (size_t j = 1; j < nin && alive > 0; ++j) {
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
        for (uint64_t t = 0; t < alive; ++t)
            acc = R::plus(acc, partial[live[t]]);
    }
    return acc;
}

// Output rows [begin, end) of an op that sums nothing (a join; one case's belief): a product per
// row, the rows of the innermost output variable in one loop per input, so that the odometer and
// the call cost once per run of rows, not once per row. `digit` and `off` start at `begin`.
template <class R>
void productRows(const OpPlan &plan, std::vector<uint32_t> &digit, std::vector<uint64_t> &off,
                 uint64_t begin, uint64_t end) {
    using V = typename R::V;
    const size_t k = plan.outDomains.size(), nin = plan.data.size(), last = k - 1;
    const uint32_t width = plan.outDomains[last];
    std::vector<V> run(width);
    for (uint64_t row = begin; row < end;) {
        const uint64_t n = std::min<uint64_t>(end - row, width - digit[last]);
        for (size_t j = 0; j < nin; ++j) {
            const double *d = plan.data[j] + off[j];
            const uint64_t s = plan.outStride[j * k + last];
            if (j == 0)
                for (uint64_t x = 0; x < n; ++x)
                    run[x] = R::load(d[x * s]);
            else
                for (uint64_t x = 0; x < n; ++x)
                    run[x] = R::times(run[x], R::load(d[x * s]));
        }
        for (const double *c : plan.constants)
            for (uint64_t x = 0; x < n; ++x)
                run[x] = R::times(run[x], R::load(*c));
        for (uint64_t x = 0; x < n; ++x)
            plan.out[row + x] = R::store(run[x]);
        row += n;
        for (size_t j = 0; j < nin; ++j)
            off[j] += n * plan.outStride[j * k + last];
        digit[last] += static_cast<uint32_t>(n);
        for (size_t i = last + 1; i-- > 0 && digit[i] == plan.outDomains[i];) {
            for (size_t j = 0; j < nin; ++j)
                off[j] -= uint64_t{plan.outDomains[i]} * plan.outStride[j * k + i];
            digit[i] = 0;
            if (i == 0)
                break;
            ++digit[i - 1];
            for (size_t j = 0; j < nin; ++j)
                off[j] += plan.outStride[j * k + i - 1];
        }
    }
}

// Output rows [begin, end) of one op.
template <Semiring S> void runRows(const OpPlan &plan, uint64_t begin, uint64_t end) {
    using R = Ring<S>;
    const size_t k = plan.outDomains.size();
    const size_t nin = plan.data.size();
    const uint64_t m = plan.elimCount;
    std::vector<uint32_t> digit(k);
    std::vector<uint64_t> off(plan.base);
    uint64_t rest = begin;
    for (size_t i = k; i-- > 0;) {
        digit[i] = static_cast<uint32_t>(rest % plan.outDomains[i]);
        rest /= plan.outDomains[i];
        for (size_t j = 0; j < nin; ++j)
            off[j] += digit[i] * plan.outStride[j * k + i];
    }
    if (plan.elimCount == 1 && plan.outerDomains.empty() && k > 0) {
        productRows<R>(plan, digit, off, begin, end);
        return;
    }
    // Inputs outermost, eliminated values innermost: each input's group of rows for one output
    // row is read in one sweep (contiguous when the eliminated variable is fastest, Bistaffa et al.
    // 2017 §III-A).
    //
    // The semiring's zero absorbs ⊗ and is the identity of ⊕, so once a partial product is zero
    // the other inputs need not be read for it. The smallest input comes first (planOp): in a
    // batched junction tree that is an evidence indicator, which leaves one state of its
    // variable per case; where it leaves at most half the products, the other inputs are read
    // only for the live ones.
    using V = typename R::V;
    std::vector<V> partial(m);
    std::vector<uint64_t> live(m);
    const V zero = R::zero();
    const size_t q = plan.outerDomains.size();
    std::vector<uint32_t> outerDigit(q);
    std::vector<uint64_t> at(nin); // each input's offset: the row's plus the outer odometer's
    for (uint64_t row = begin; row < end; ++row) {
        V acc = zero;
        at.assign(off.begin(), off.end());
        for (;;) {
            acc = R::plus(acc, innerBlock<R>(plan, at.data(), partial.data(), live.data()));
            size_t i = q;
            while (i-- > 0) {
                for (size_t j = 0; j < nin; ++j)
                    at[j] += plan.outerStride[j * q + i];
                if (++outerDigit[i] < plan.outerDomains[i])
                    break;
                for (size_t j = 0; j < nin; ++j)
                    at[j] -= uint64_t{plan.outerDomains[i]} * plan.outerStride[j * q + i];
                outerDigit[i] = 0;
            }
            if (i == SIZE_MAX) // every outer digit wrapped: the last block
                break;
        }
        for (const double *c : plan.constants)
            acc = R::times(acc, R::load(*c));
        plan.out[row] = R::store(acc);
        for (size_t i = k; i-- > 0;) {
            for (size_t j = 0; j < nin; ++j)
                off[j] += plan.outStride[j * k + i];
            if (++digit[i] < plan.outDomains[i])
                break;
            for (size_t j = 0; j < nin; ++j)
                off[j] -= uint64_t{plan.outDomains[i]} * plan.outStride[j * k + i];
            digit[i] = 0;
        }
    }
}

void runChunk(Semiring s, const OpPlan &plan, uint64_t begin, uint64_t end) {
    if (isMessageOp(plan.op->kind)) {
        runMessageOpRows(*plan.program, *plan.op, *plan.tables, plan.out + begin, begin, end);
        return;
    }
    if (plan.op->kind == TensorOpKind::InverseMax) { // the max of a product semiring, inverted
        runRows<Semiring::MaxProduct>(plan, begin, end);
        for (uint64_t row = begin; row < end; ++row)
            plan.out[row] = plan.out[row] > 0 ? 1 / plan.out[row] : 1;
        return;
    }
    switch (s) {
    case Semiring::SumProduct:
        runRows<Semiring::SumProduct>(plan, begin, end);
        break;
    case Semiring::MaxProduct:
        runRows<Semiring::MaxProduct>(plan, begin, end);
        break;
    case Semiring::MaxSum:
        runRows<Semiring::MaxSum>(plan, begin, end);
        break;
    case Semiring::MinSum:
        runRows<Semiring::MinSum>(plan, begin, end);
        break;
    case Semiring::MinSumInt64:
        runRows<Semiring::MinSumInt64>(plan, begin, end);
        break;
    }
}

struct Chunk {
    uint32_t plan;
    uint64_t begin, end;
};

} // namespace

Status runTensorOpsCpu(const TensorProgram &program, std::span<const uint32_t> ops,
                       std::vector<const double *> &data,
                       std::vector<std::vector<double>> &computed, unsigned threads) {
    threads = threadsOrCores(threads);
    try {
        std::vector<OpPlan> plans;
        std::vector<Chunk> chunks;
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
            if (isMessageOp(op.kind)) {
                OpPlan plan;
                plan.op = &op;
                plan.out = out.data();
                plan.program = &program;
                plan.tables = &data;
                plans.push_back(std::move(plan));
            } else {
                plans.push_back(planOp(program, op, data, out.data()));
            }
            const uint64_t rows = out.size();
            const uint64_t per = std::max<uint64_t>(4096, rows / (8 * threads) + 1);
            for (uint64_t b = 0; b < rows; b += per)
                chunks.push_back(
                    {static_cast<uint32_t>(plans.size() - 1), b, std::min(rows, b + per)});
            work += rows * plans.back().elimCount * op.inputs.size();
        }
        std::atomic<size_t> next{0};
        auto worker = [&] {
            for (size_t c; (c = next.fetch_add(1)) < chunks.size();)
                runChunk(program.semiring, plans[chunks[c].plan], chunks[c].begin, chunks[c].end);
        };
        // Small levels run inline: a thread start costs more than ~10^5 table reads.
        const unsigned n = work < (1u << 17) ? 1 : std::min<unsigned>(threads, chunks.size());
        onThreads(n, [&](size_t) { worker(); });
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
    if (Status s = program.verify(); !s)
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
