#include "runtime/loopy/message_update.h"

#include <algorithm>
#include <cmath>

namespace zbddc {

namespace {

// The messages into factor f from its scope, one entry per (position, state), laid out like
// f's outgoing messages; -inf entries as a flag beside a 0 value.
struct Incoming {
    std::vector<double> value;
    std::vector<uint8_t> zero;
};

void incomingMessages(const FactorGraph &g, uint32_t f, const VariableSums &sums,
                      std::span<const double> messages, Incoming &in) {
    const uint32_t first = g.factorEdgeStart[f], last = g.factorEdgeStart[f + 1];
    const uint64_t base = g.messageOffset[first];
    in.value.resize(g.messageOffset[last] - base);
    in.zero.resize(in.value.size());
    for (uint32_t e = first; e < last; ++e) {
        const uint32_t v = g.edgeVariable[e];
        for (uint32_t x = 0; x < g.domainSizes[v]; ++x) {
            const double own = messages[g.messageOffset[e] + x];
            const uint64_t at = g.messageOffset[e] - base + x;
            const double q = messageIntoFactor(sums, g.stateOffset[v] + x, own, std::isinf(own));
            in.zero[at] = std::isinf(q);
            in.value[at] = in.zero[at] ? 0 : q;
        }
    }
}

// Calls visit(row, digits) for every entry of f's table in row order (scope.back() fastest).
template <class Visit> void forEachEntry(const FactorGraph &g, uint32_t f, Visit visit) {
    const std::vector<uint32_t> &scope = g.factors[f].scope;
    thread_local std::vector<uint32_t> digits;
    digits.assign(scope.size(), 0);
    const uint64_t rows = g.factors[f].logValues.size();
    for (uint64_t row = 0; row < rows; ++row) {
        visit(row, digits);
        for (size_t p = scope.size(); p-- > 0;) {
            if (++digits[p] < g.domainSizes[scope[p]])
                break;
            digits[p] = 0;
        }
    }
}

// Normalises each of factor f's outgoing messages in `out`; false where one vanished.
bool normaliseFactorMessages(const FactorGraph &g, uint32_t f, LoopySemiring semiring,
                             std::span<double> out) {
    const uint64_t base = g.messageOffset[g.factorEdgeStart[f]];
    bool alive = true;
    for (uint32_t e = g.factorEdgeStart[f]; e < g.factorEdgeStart[f + 1]; ++e)
        alive &= normaliseMessage(
            out.subspan(g.messageOffset[e] - base, g.messageOffset[e + 1] - g.messageOffset[e]),
            semiring);
    return alive;
}

// Sum-product messages of factor f from the linear tables: Σ over entries of ψ(x) times the
// other positions' incoming messages, each scaled by its largest entry (so nothing overflows),
// the scales added back in log space. False where some sum falls below kLinearFloor.
bool linearFactorMessages(const FactorGraph &g, uint32_t f, const LinearTables &linear,
                          const Incoming &in, std::span<double> out) {
    thread_local std::vector<double> w, acc, top, prefix, suffix;
    thread_local std::vector<uint64_t> at;
    const std::vector<uint32_t> &scope = g.factors[f].scope;
    const size_t k = scope.size();
    const uint32_t first = g.factorEdgeStart[f];
    const uint64_t base = g.messageOffset[first];
    top.assign(k, -INFINITY);
    for (size_t p = 0; p < k; ++p)
        for (uint64_t i = g.messageOffset[first + p] - base;
             i < g.messageOffset[first + p + 1] - base; ++i)
            if (!in.zero[i])
                top[p] = std::max(top[p], in.value[i]);
    w.resize(out.size());
    for (size_t p = 0; p < k; ++p) {
        if (std::isinf(top[p]))
            return false; // a message into f rules out every state
        for (uint64_t i = g.messageOffset[first + p] - base;
             i < g.messageOffset[first + p + 1] - base; ++i)
            w[i] = in.zero[i] ? 0 : std::exp(in.value[i] - top[p]);
    }
    acc.assign(out.size(), 0.0);
    prefix.resize(k + 1);
    suffix.resize(k + 1);
    at.resize(k);
    const double *psi = linear.values.data() + linear.offset[f];
    forEachEntry(g, f, [&](uint64_t row, const std::vector<uint32_t> &digits) {
        if (psi[row] == 0)
            return;
        prefix[0] = suffix[k] = 1;
        for (size_t p = 0; p < k; ++p) {
            at[p] = g.messageOffset[first + p] - base + digits[p];
            prefix[p + 1] = prefix[p] * w[at[p]];
        }
        for (size_t p = k; p-- > 0;)
            suffix[p] = suffix[p + 1] * w[at[p]];
        for (size_t p = 0; p < k; ++p)
            acc[at[p]] += psi[row] * prefix[p] * suffix[p + 1];
    });
    double topSum = 0;
    for (double t : top)
        topSum += t;
    for (size_t p = 0; p < k; ++p)
        for (uint64_t i = g.messageOffset[first + p] - base;
             i < g.messageOffset[first + p + 1] - base; ++i) {
            if (acc[i] < kLinearFloor)
                return false;
            out[i] = std::log(acc[i]) + linear.logScale[f] + topSum - top[p];
        }
    return true;
}

} // namespace

LinearTables linearTables(const FactorGraph &g) {
    LinearTables t;
    for (const LoopyFactor &f : g.factors) {
        t.offset.push_back(t.values.size());
        double top = -INFINITY;
        for (double x : f.logValues)
            top = std::max(top, x);
        t.logScale.push_back(top);
        for (double x : f.logValues)
            t.values.push_back(std::isinf(top) ? 0.0 : std::exp(x - top));
    }
    return t;
}

void sumIntoVariables(const FactorGraph &g, const Evidence &evidence,
                      std::span<const double> messages, uint32_t begin, uint32_t end,
                      VariableSums &sums) {
    for (uint32_t v = begin; v < end; ++v) {
        const uint32_t observed = v < evidence.states.size() ? evidence.states[v] : kNone;
        for (uint32_t x = 0; x < g.domainSizes[v]; ++x) {
            double finite = 0;
            uint32_t zeros = observed != kNone && observed != x;
            for (uint32_t i = g.variableEdgeStart[v]; i < g.variableEdgeStart[v + 1]; ++i) {
                const double m = messages[g.messageOffset[g.variableEdges[i]] + x];
                if (std::isinf(m))
                    ++zeros;
                else
                    finite += m;
            }
            sums.finite[g.stateOffset[v] + x] = finite;
            sums.zeros[g.stateOffset[v] + x] = zeros;
        }
    }
}

double messageIntoFactor(const VariableSums &sums, uint64_t state, double own, uint32_t ownIsZero) {
    if (sums.zeros[state] > ownIsZero)
        return -INFINITY;
    return sums.finite[state] - (ownIsZero ? 0 : own);
}

bool normaliseMessage(std::span<double> m, LoopySemiring semiring) {
    const double top = *std::max_element(m.begin(), m.end());
    if (std::isinf(top))
        return false;
    double shift = top;
    if (semiring == LoopySemiring::SumProduct) {
        double sum = 0;
        for (double v : m)
            sum += std::exp(v - top);
        shift += std::log(sum);
    }
    for (double &v : m)
        v -= shift;
    return true;
}

double messageResidual(std::span<const double> oldMessage, std::span<const double> newMessage,
                       LoopySemiring semiring) {
    double worst = 0;
    for (size_t x = 0; x < oldMessage.size(); ++x) {
        const double a = oldMessage[x], b = newMessage[x];
        if (semiring == LoopySemiring::SumProduct)
            worst = std::max(worst, std::abs(std::exp(a) - std::exp(b)));
        else if (std::isinf(a) || std::isinf(b))
            worst = std::max(worst, a == b ? 0.0 : INFINITY);
        else
            worst = std::max(worst, std::abs(a - b));
    }
    return worst;
}

bool updateFactorMessages(const FactorGraph &g, uint32_t f, const VariableSums &sums,
                          std::span<const double> messages, LoopySemiring semiring,
                          std::span<double> out, const LinearTables *linear) {
    thread_local Incoming in;
    thread_local std::vector<double> scale; // sum-product: running sum beside out's running max
    incomingMessages(g, f, sums, messages, in);
    const std::vector<uint32_t> &scope = g.factors[f].scope;
    const std::vector<double> &logValues = g.factors[f].logValues;
    const uint32_t first = g.factorEdgeStart[f];
    const uint64_t base = g.messageOffset[first];
    if (linear && semiring == LoopySemiring::SumProduct &&
        linearFactorMessages(g, f, *linear, in, out))
        return normaliseFactorMessages(g, f, semiring, out);
    std::fill(out.begin(), out.end(), -INFINITY);
    scale.assign(out.size(), 0.0);
    const bool sum = semiring == LoopySemiring::SumProduct;
    forEachEntry(g, f, [&](uint64_t row, const std::vector<uint32_t> &digits) {
        const double phi = logValues[row];
        if (std::isinf(phi))
            return;
        double total = phi;
        uint32_t zeros = 0;
        for (size_t p = 0; p < scope.size(); ++p) {
            const uint64_t at = g.messageOffset[first + p] - base + digits[p];
            total += in.value[at];
            zeros += in.zero[at];
        }
        for (size_t p = 0; p < scope.size(); ++p) {
            const uint64_t at = g.messageOffset[first + p] - base + digits[p];
            if (zeros > in.zero[at])
                continue; // another incoming message rules this entry out
            const double v = total - in.value[at];
            double &top = out[at];
            if (!sum) {
                top = std::max(top, v);
            } else if (v > top) { // a running log-sum-exp: rescale the sum to the new maximum
                scale[at] = scale[at] * std::exp(top - v) + 1;
                top = v;
            } else {
                scale[at] += std::exp(v - top);
            }
        }
    });
    if (sum)
        for (size_t i = 0; i < out.size(); ++i)
            if (!std::isinf(out[i]))
                out[i] += std::log(scale[i]);
    bool alive = true;
    for (uint32_t e = first; e < g.factorEdgeStart[f + 1]; ++e)
        alive &= normaliseMessage(
            out.subspan(g.messageOffset[e] - base, g.messageOffset[e + 1] - g.messageOffset[e]),
            semiring);
    return alive;
}

void factorBeliefLog(const FactorGraph &g, uint32_t f, const VariableSums &sums,
                     std::span<const double> messages, std::span<double> out) {
    thread_local Incoming in;
    incomingMessages(g, f, sums, messages, in);
    const uint32_t first = g.factorEdgeStart[f];
    const uint64_t base = g.messageOffset[first];
    const std::vector<double> &logValues = g.factors[f].logValues;
    forEachEntry(g, f, [&](uint64_t row, const std::vector<uint32_t> &digits) {
        double total = logValues[row];
        for (size_t p = 0; p < digits.size(); ++p) {
            const uint64_t at = g.messageOffset[first + p] - base + digits[p];
            total = in.zero[at] ? -INFINITY : total + in.value[at];
        }
        out[row] = total;
    });
}

} // namespace zbddc
