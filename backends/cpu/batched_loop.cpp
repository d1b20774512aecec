#include "backends/cpu/batched_loop.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>

namespace zbddc {

namespace {

bool isOp(OpKind k) { return k == OpKind::Plus || k == OpKind::Times || k == OpKind::MulAdd; }

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

} // namespace

Result<BatchedLoop> BatchedLoop::build(const Circuit &c, const CpuOptions &o) {
    auto plan = planCpu(c, o);
    if (!plan)
        return plan.error();
    BatchedLoop loop;
    loop.semiring_ = plan->semiring;
    loop.numeric_ = plan->numeric;
    loop.numInputs_ = c.numInputs();
    loop.threads_ = o.threads;
    const bool log = plan->numeric == Numeric::Log;
    const SemiringOps ring{plan->semiring};

    // Leaves get one slot each for the whole run; ops get slots freed after their last reader.
    std::vector<uint32_t> slot(c.numNodes(), kNone);
    std::vector<uint32_t> lastUse(c.numNodes(), 0);
    for (size_t i = 0; i < plan->ops.size(); ++i) {
        const NodeId id = plan->ops[i];
        const uint32_t operands[3] = {c.a[id], c.b[id], c.c[id]};
        for (int k = 0; k < operandCount(c.kind[id]); ++k)
            lastUse[operands[k]] = static_cast<uint32_t>(i);
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
        const uint32_t operands[3] = {c.a[id], c.b[id], c.c[id]};
        for (int k = 0; k < operandCount(c.kind[id]); ++k)
            if (!isOp(c.kind[operands[k]]))
                leafSlot(operands[k]);
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
        const uint32_t operands[3] = {c.a[id], c.b[id], c.c[id]};
        for (int k = 0; k < operandCount(c.kind[id]); ++k) {
            const NodeId p = operands[k];
            if (isOp(c.kind[p]) && lastUse[p] == i && !isOutput[p] && slot[p] != kNone) {
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
    return loop;
}

void BatchedLoop::runTile(const double *x, double *out, size_t first, size_t lanes,
                          double *v) const {
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
    if (log)
        semiring_ == Semiring::SumProduct ? runOps<LogSumProduct>(ops_, v) : runOps<MaxSum>(ops_, v);
    else if (semiring_ == Semiring::SumProduct)
        runOps<SumProduct>(ops_, v);
    else if (semiring_ == Semiring::MaxProduct)
        runOps<MaxProduct>(ops_, v);
    else if (semiring_ == Semiring::MaxSum)
        runOps<MaxSum>(ops_, v);
    else
        runOps<MinSum>(ops_, v);
    for (size_t l = 0; l < lanes; ++l)
        for (size_t o = 0; o < outputs_.size(); ++o)
            out[(first + l) * outputs_.size() + o] = v[size_t(outputs_[o]) * kLanes + l];
}

Status BatchedLoop::evaluate(std::span<const double> x, std::span<double> out, size_t batch) const {
    if (x.size() != batch * numInputs_ || out.size() != batch * outputs_.size())
        return error("x or out does not hold batch x inputs / batch x outputs values");
    const size_t tiles = (batch + kLanes - 1) / kLanes;
    const size_t threads = std::min<size_t>(resolveThreads(threads_), std::max<size_t>(1, tiles));
    auto work = [&](size_t t) {
        std::vector<double> slots(size_t(numSlots_) * kLanes);
        for (size_t tile = tiles * t / threads; tile < tiles * (t + 1) / threads; ++tile) {
            const size_t first = tile * kLanes;
            runTile(x.data(), out.data(), first, std::min(kLanes, batch - first), slots.data());
        }
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t)
        pool.emplace_back(work, t);
    work(0);
    for (auto &t : pool)
        t.join();
    return Ok{};
}

} // namespace zbddc
