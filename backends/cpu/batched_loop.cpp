#include "backends/cpu/batched_loop.h"
#include "ir/optimal_term.h"

#include "support/memory.h"
#include "support/threads.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <thread>

namespace zbddc {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// The semiring's arithmetic per representation, as in ir/interpret.cpp (std::max/std::min,
// log-add-exp); one type per mode so that the lane loops compile to straight SIMD code.
struct SumProduct {
    static double plus(double p, double q) { return p + q; }
    static double times(double p, double q) { return p * q; }
};
struct MaxProduct {
    static double plus(double p, double q) { return p < q ? q : p; }
    static double times(double p, double q) { return p * q; }
};
struct MaxSum {
    static double plus(double p, double q) { return p < q ? q : p; }
    static double times(double p, double q) { return p + q; }
};
struct MinSum {
    static double plus(double p, double q) { return q < p ? q : p; }
    static double times(double p, double q) { return p + q; }
};
struct LogSumProduct {
    static double plus(double p, double q) {
        const double hi = p < q ? q : p, lo = q < p ? q : p;
        return hi == kNegInf ? hi : hi + std::log1p(std::exp(lo - hi));
    }
    static double times(double p, double q) { return p + q; }
};

template <class A>
void runOps(const std::vector<BatchedLoop::Op> &ops, double *__restrict v) {
    constexpr size_t W = BatchedLoop::kLanes;
    for (const BatchedLoop::Op &op : ops) {
        double *__restrict d = v + size_t(op.dst) * W;
        const double *pa = v + size_t(op.a) * W, *pb = v + size_t(op.b) * W;
        double t[W];
        switch (op.kind) {
        case OpKind::Plus:
            for (size_t l = 0; l < W; ++l)
                t[l] = A::plus(pa[l], pb[l]);
            break;
        case OpKind::Times:
            for (size_t l = 0; l < W; ++l)
                t[l] = A::times(pa[l], pb[l]);
            break;
        default: {
            const double *pc = v + size_t(op.c) * W;
            for (size_t l = 0; l < W; ++l)
                t[l] = A::plus(A::times(pa[l], pb[l]), pc[l]);
        }
        }
        for (size_t l = 0; l < W; ++l) // dst may reuse an operand's slot: write after reading
            d[l] = t[l];
    }
}

// The adjoint pass over the kept forward values `v`, adjoints `g` (one slot per value): each op
// passes its adjoint to its operands, in reverse order, exactly as ir/interpret.cpp's
// inputAdjoints does per node. Operands are updated one after the other, so an op that reads one
// node twice adds both contributions.
template <class A>
void runAdjointOps(const std::vector<BatchedLoop::Op> &ops, const double *v, double *g) {
    constexpr size_t W = BatchedLoop::kLanes;
    for (auto op = ops.rbegin(); op != ops.rend(); ++op) {
        const double *gd = g + size_t(op->dst) * W;
        double *ga = g + size_t(op->a) * W, *gb = g + size_t(op->b) * W;
        const double *va = v + size_t(op->a) * W, *vb = v + size_t(op->b) * W;
        if (op->kind == OpKind::Plus) {
            for (size_t l = 0; l < W; ++l)
                ga[l] = A::plus(ga[l], gd[l]);
            for (size_t l = 0; l < W; ++l)
                gb[l] = A::plus(gb[l], gd[l]);
            continue;
        }
        for (size_t l = 0; l < W; ++l)
            ga[l] = A::plus(ga[l], A::times(gd[l], vb[l]));
        for (size_t l = 0; l < W; ++l)
            gb[l] = A::plus(gb[l], A::times(gd[l], va[l]));
        if (op->kind == OpKind::MulAdd) {
            double *gc = g + size_t(op->c) * W;
            for (size_t l = 0; l < W; ++l)
                gc[l] = A::plus(gc[l], gd[l]);
        }
    }
}

} // namespace

// Calls f with the arithmetic type of this loop's semiring and representation.
template <class F> void BatchedLoop::withArithmetic(F &&f) const {
    if (numeric_ == Numeric::Log)
        semiring_ == Semiring::SumProduct ? f(LogSumProduct{}) : f(MaxSum{});
    else if (semiring_ == Semiring::SumProduct)
        f(SumProduct{});
    else if (semiring_ == Semiring::MaxProduct)
        f(MaxProduct{});
    else if (semiring_ == Semiring::MaxSum)
        f(MaxSum{});
    else
        f(MinSum{});
}

Result<BatchedLoop> BatchedLoop::build(const Circuit &c, const CpuOptions &o, bool keepValues) {
    auto plan = planCpu(c, o);
    if (!plan)
        return plan.error();
    BatchedLoop loop;
    loop.semiring_ = plan->semiring;
    loop.numeric_ = plan->numeric;
    loop.numInputs_ = c.numInputs();
    loop.threads_ = o.threads;
    loop.keepValues_ = keepValues;
    const bool log = plan->numeric == Numeric::Log;
    const SemiringOps ring{plan->semiring};
    loop.zero_ = log ? kNegInf : ring.zero();
    loop.one_ = log ? 0.0 : ring.one();

    // Leaves get one slot each for the whole run; ops get slots freed after their last reader.
    std::vector<uint32_t> slot(c.numNodes(), kNone);
    std::vector<uint32_t> lastUse(c.numNodes(), 0);
    for (size_t i = 0; i < plan->ops.size(); ++i) {
        const NodeId id = plan->ops[i];
        for (NodeId p : operandsOf(c, id))
            lastUse[p] = static_cast<uint32_t>(i);
    }
    std::vector<uint8_t> isOutput(c.numNodes(), 0);
    for (NodeId out : c.outputs)
        isOutput[out] = 1;
    auto leafSlot = [&](NodeId id) {
        if (slot[id] != kNone)
            return slot[id];
        slot[id] = loop.numSlots_++;
        Load load{slot[id], kNone, 0.0};
        switch (c.kind[id]) {
        case OpKind::Input: load.input = c.a[id]; break;
        case OpKind::Zero: load.constant = log ? kNegInf : ring.zero(); break;
        case OpKind::One: load.constant = log ? 0.0 : ring.one(); break;
        default: load.constant = log ? std::log(c.constants[c.a[id]]) : c.constants[c.a[id]];
        }
        loop.loads_.push_back(load);
        return slot[id];
    };
    for (NodeId id : plan->ops) {
        for (NodeId p : operandsOf(c, id))
            if (!isOp(c.kind[p]))
                leafSlot(p);
    }
    for (NodeId out : c.outputs)
        if (!isOp(c.kind[out]))
            leafSlot(out);
    std::vector<uint32_t> free;
    for (size_t i = 0; i < plan->ops.size(); ++i) {
        const NodeId id = plan->ops[i];
        Op op{c.kind[id], 0, slot[c.a[id]], slot[c.b[id]],
              c.kind[id] == OpKind::MulAdd ? slot[c.c[id]] : 0};
        // Operands read for the last time free their slots before the result takes one.
        for (NodeId p : operandsOf(c, id)) {
            if (!keepValues && isOp(c.kind[p]) && lastUse[p] == i && !isOutput[p] &&
                slot[p] != kNone) {
                free.push_back(slot[p]);
                slot[p] = kNone; // a node read twice by this op is freed once
            }
        }
        if (free.empty()) {
            op.dst = loop.numSlots_++;
        } else {
            op.dst = free.back();
            free.pop_back();
        }
        slot[id] = op.dst;
        loop.ops_.push_back(op);
    }
    for (NodeId out : c.outputs)
        loop.outputs_.push_back(slot[out]);
    // The traceback's way back (max/min semirings; every slot written once).
    if (keepValues && loop.semiring_ != Semiring::SumProduct) {
        loop.producer_.assign(loop.numSlots_, kNone);
        loop.slotInput_.assign(loop.numSlots_, kNone);
        for (size_t k = 0; k < loop.ops_.size(); ++k)
            loop.producer_[loop.ops_[k].dst] = static_cast<uint32_t>(k);
        for (const Load &load : loop.loads_)
            loop.slotInput_[load.slot] = load.input;
    }
    return loop;
}

void BatchedLoop::forwardTile(const double *x, size_t first, size_t lanes, double *v) const {
    const bool log = numeric_ == Numeric::Log;
    for (const Load &load : loads_)
        for (size_t l = 0; l < kLanes; ++l) {
            // Lanes past the batch's end repeat its last sample (finite, discarded).
            const size_t s = first + std::min(l, lanes - 1);
            const double value = load.input == kNone ? load.constant
                                 : log ? std::log(x[s * numInputs_ + load.input])
                                       : x[s * numInputs_ + load.input];
            v[size_t(load.slot) * kLanes + l] = value;
        }
    withArithmetic([&](auto arithmetic) { runOps<decltype(arithmetic)>(ops_, v); });
}

void BatchedLoop::runTile(const double *x, double *out, size_t first, size_t lanes,
                          double *v) const {
    forwardTile(x, first, lanes, v);
    for (size_t l = 0; l < lanes; ++l)
        for (size_t o = 0; o < outputs_.size(); ++o)
            out[(first + l) * outputs_.size() + o] = v[size_t(outputs_[o]) * kLanes + l];
}

// `slots` holds the forward values, then (numSlots_ further slots) their adjoints.
void BatchedLoop::adjointTile(const double *x, size_t output, double *adj, size_t first,
                              size_t lanes, double *slots) const {
    forwardTile(x, first, lanes, slots);
    double *g = slots + size_t(numSlots_) * kLanes;
    std::fill(g, g + size_t(numSlots_) * kLanes, zero_);
    std::fill_n(g + size_t(outputs_[output]) * kLanes, kLanes, one_);
    withArithmetic([&](auto arithmetic) {
        using A = decltype(arithmetic);
        runAdjointOps<A>(ops_, slots, g);
        for (size_t l = 0; l < lanes; ++l) {
            double *row = adj + (first + l) * numInputs_;
            std::fill(row, row + numInputs_, zero_);
            // An input read by several Input nodes collects each one's adjoint.
            for (const Load &load : loads_)
                if (load.input != kNone)
                    row[load.input] = A::plus(row[load.input], g[size_t(load.slot) * kLanes + l]);
        }
    });
}

template <class A>
bool BatchedLoop::traceLane(const double *v, size_t lane, uint32_t outSlot,
                            std::span<const uint32_t> indicator, std::span<uint32_t> states,
                            std::vector<uint32_t> &pending, TieWatch *watch) const {
    // Over the tile's slots, bounded by the op count instead of a visited set per lane: a
    // ZBDD's term is a path, so a walk that repeats shared ops is not one to decode this way.
    struct SlotWalk {
        const BatchedLoop &loop;
        const double *v;
        size_t lane;
        TieWatch *watch;
        double value(uint32_t slot) const { return v[size_t(slot) * kLanes + lane]; }
        bool firstVisit(uint32_t) const { return true; }
        uint32_t input(uint32_t slot) const { return loop.slotInput_[slot]; }
        bool isOp(uint32_t slot) const { return loop.producer_[slot] != kNone; }
        void pushChosen(uint32_t slot, std::vector<uint32_t> &pending) const {
            const Op &op = loop.ops_[loop.producer_[slot]];
            pushChosenOperands(A{}, op.kind, op.a, op.b, op.c, value(op.a), value(op.b),
                               op.kind == OpKind::MulAdd ? value(op.c) : 0.0, pending, watch);
        }
    } walk{*this, v, lane, watch};
    return walkOptimalTerm(walk, outSlot, ops_.size(), pending, [&](uint32_t input) {
               return setIndicatorState(indicator, input, states);
           }) == TermWalkEnd::Done;
}

// Splits the batch's tiles over the threads; each thread gets `slotsPerTile` × kLanes doubles,
// written before they are read (so not zeroed: barley's are 12 GB a thread with every value
// kept), and no more threads than half the available memory holds (sixteen of barley's would
// want 190 GB). Small enough ones are kept for the next call (tileBuffers_).
template <class Tile>
Status BatchedLoop::forEachTile(size_t batch, size_t slotsPerTile, Tile &&tile) const {
    const size_t tiles = (batch + kLanes - 1) / kLanes;
    const size_t tileBytes = slotsPerTile * kLanes * sizeof(double);
    const auto wanted = static_cast<unsigned>(
        std::min<size_t>(threadsOrCores(threads_), std::max<size_t>(1, tiles)));
    const size_t threads = threadsThatFit(wanted, tileBytes);
    auto work = [&](size_t t) {
        const size_t count = slotsPerTile * kLanes;
        std::unique_ptr<double[]> slots = tileBuffers_->take(count);
        for (size_t i = tiles * t / threads; i < tiles * (t + 1) / threads; ++i) {
            const size_t first = i * kLanes;
            tile(first, std::min(kLanes, batch - first), slots.get());
        }
        tileBuffers_->give(std::move(slots), count);
    };
    onThreads(threads, work);
    return Ok{};
}

Status BatchedLoop::evaluate(std::span<const double> x, std::span<double> out, size_t batch) const {
    if (x.size() != batch * numInputs_ || out.size() != batch * outputs_.size())
        return error("x or out does not hold batch x inputs / batch x outputs values");
    return forEachTile(batch, numSlots_, [&](size_t first, size_t lanes, double *slots) {
        runTile(x.data(), out.data(), first, lanes, slots);
    });
}

Status BatchedLoop::adjoints(std::span<const double> x, size_t output, std::span<double> adj,
                             size_t batch) const {
    if (!keepValues_)
        return error("the data-driven loop was built without the adjoint pass");
    if (output >= outputs_.size())
        return error("output " + std::to_string(output) + " is out of range");
    if (x.size() != batch * numInputs_ || adj.size() != batch * numInputs_)
        return error("x or adj does not hold batch x inputs values");
    return forEachTile(batch, size_t(numSlots_) * 2, [&](size_t first, size_t lanes, double *slots) {
        adjointTile(x.data(), output, adj.data(), first, lanes, slots);
    });
}

Status BatchedLoop::traceback(std::span<const double> x, size_t output,
                              std::span<const uint32_t> indicator, size_t numVariables,
                              std::span<double> out, std::span<uint32_t> states,
                              std::span<uint8_t> traced, size_t batch,
                              std::span<uint8_t> tied) const {
    if (!keepValues_)
        return error("the data-driven loop was built without every value kept (no traceback)");
    if (semiring_ == Semiring::SumProduct)
        return error("traceback applies to max/min semirings");
    if (output >= outputs_.size())
        return error("output " + std::to_string(output) + " is out of range");
    if (x.size() != batch * numInputs_ || out.size() != batch * outputs_.size() ||
        indicator.size() != 2 * numInputs_ || states.size() != batch * numVariables ||
        traced.size() != batch || (!tied.empty() && tied.size() != batch))
        return error("traceback: the spans do not hold the batch's values");
    const std::optional<Semiring> ring = tieRing(semiring_, numeric_);
    return forEachTile(batch, numSlots_, [&](size_t first, size_t lanes, double *slots) {
        runTile(x.data(), out.data(), first, lanes, slots);
        std::vector<uint32_t> pending;
        withArithmetic([&](auto arithmetic) {
            for (size_t l = 0; l < lanes; ++l) {
                const std::span<uint32_t> row = states.subspan((first + l) * numVariables,
                                                                numVariables);
                std::fill(row.begin(), row.end(), kNone);
                TieWatch watch{ring.value_or(semiring_)};
                const bool asked = !tied.empty() && ring;
                traced[first + l] = traceLane<decltype(arithmetic)>(
                    slots, l, outputs_[output], indicator, row, pending, asked ? &watch : nullptr);
                if (!tied.empty())
                    tied[first + l] = watch.met || !ring; // float32: cannot tell, so tied
            }
        });
    });
}

} // namespace zbddc
