#include "runtime/float32_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

namespace zbddc {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kU = 0x1p-24;         // binary32's unit roundoff
constexpr double kEta = 0x1p-150;      // a product's absolute error in gradual underflow
constexpr double kFltMin = 0x1p-126;   // the least normal float
constexpr double kFltMax = 0x1.fffffep127;
// Log-sum-exp's roundings besides u·|result|: the difference lo - hi (u/e after log1p(exp)'s
// damping), expf's 2 ulp (4u, halved by the same damping) and log1pf's 1 ulp (2u) of ≤ ln 2.
constexpr double kLogAddRounds = 4;
constexpr double kLn2 = 0.6931471805599453;

bool isFloat(double v) { return static_cast<double>(static_cast<float>(v)) == v; }

// |ln x| for a positive bound, 0 for a value that is always zero (nothing to round).
double logMagnitude(double x) { return x > 0 ? std::fabs(std::log(x)) : 0; }

// Natural logs of a node's nonzero values over the batch: [lo, hi], empty (lo > hi) where the
// node is always zero.
struct LogRange {
    double lo = kInf, hi = -kInf;
    double magnitude() const { return lo > hi ? 0 : std::max(std::fabs(lo), std::fabs(hi)); }
};

LogRange times(LogRange a, LogRange b) {
    if (a.lo > a.hi || b.lo > b.hi)
        return {};
    return {a.lo + b.lo, a.hi + b.hi};
}

// A nonzero sum is at least its smaller nonzero operand and at most twice the larger.
LogRange plus(LogRange a, LogRange b) {
    if (a.lo > a.hi)
        return b;
    if (b.lo > b.hi)
        return a;
    return {std::min(a.lo, b.lo), std::max(a.hi, b.hi) + kLn2};
}

// One node's leaf facts: its largest value, its log range, whether converting it to float rounds,
// and whether some value lies in float's subnormal range (the conversion's error is absolute).
struct Leaf {
    double hi = 0;
    LogRange logs;
    bool rounds = false, subnormal = false, negative = false;
};

// The logs of the least and largest nonzero values bound every nonzero value's (log is monotone).
Leaf leafOf(const InputRange &r) {
    Leaf l{r.hi, {}, r.rounds, r.subnormal, r.negative};
    if (r.lo <= r.hi)
        l.logs = {std::log(r.lo), std::log(r.hi)};
    return l;
}

void widen(InputRange &r, double v) {
    r.negative |= !(v >= 0);
    r.rounds |= !isFloat(v);
    r.subnormal |= v > 0 && v < kFltMin;
    if (v > 0)
        r.lo = std::min(r.lo, v), r.hi = std::max(r.hi, v);
}

} // namespace

double gammaFloat32(double k) { return k * kU < 1 ? k * kU / (1 - k * kU) : kInf; }

std::vector<InputRange> inputRanges(const Circuit &c, std::span<const double> xs) {
    const size_t n = c.numInputs();
    std::vector<InputRange> ranges(n);
    if (n == 0 || xs.size() < n)
        return ranges;
    for (size_t i = 0; i < n; ++i)
        widen(ranges[i], xs[i]);
    // Case by case, as xs is laid out; a value equal to the first case's (every parameter, most
    // indicators) widens nothing.
    for (size_t k = n; k + n <= xs.size(); k += n)
        for (size_t i = 0; i < n; ++i)
            if (!(xs[k + i] == xs[i]))
                widen(ranges[i], xs[k + i]);
    return ranges;
}

std::vector<InputRange> inputRanges(const Circuit &c, const InputBatch &b) {
    const size_t n = c.numInputs(), m = b.varying.size();
    std::vector<InputRange> ranges(n);
    if (b.count == 0 || b.shared.size() != n)
        return ranges;
    std::vector<uint8_t> varies(n, 0);
    for (uint32_t i : b.varying)
        varies[i] = 1;
    for (size_t i = 0; i < n; ++i)
        if (!varies[i]) // a varying input's shared value is no vector's
            widen(ranges[i], b.shared[i]);
    for (size_t j = 0; j < m; ++j)
        widen(ranges[b.varying[j]], b.values[j]);
    for (size_t k = m; k + m <= b.values.size(); k += m) // as the whole vectors' scan
        for (size_t j = 0; j < m; ++j)
            if (!(b.values[k + j] == b.values[j]))
                widen(ranges[b.varying[j]], b.values[k + j]);
    return ranges;
}

Float32Analysis analyzeFloat32(const Circuit &c, Numeric numeric, std::span<const double> xs) {
    return analyzeFloat32(c, numeric, inputRanges(c, xs));
}

const Float32Analysis &Float32AnalysisCache::analysis(const Circuit &c, Numeric numeric,
                                                      std::vector<InputRange> ranges) {
    auto kept = std::find_if(last_.begin(), last_.end(),
                             [&](const Entry &e) { return e.numeric == numeric; });
    if (kept == last_.end())
        kept = last_.insert(last_.end(), Entry{numeric, {}, {}});
    else if (kept->ranges == ranges)
        return kept->analysis;
    kept->analysis = analyzeFloat32(c, numeric, ranges);
    kept->ranges = std::move(ranges);
    ++made_;
    return kept->analysis;
}

Float32Analysis analyzeFloat32(const Circuit &c, Numeric numeric,
                               std::span<const InputRange> ranges) {
    Float32Analysis an;
    an.numeric = numeric;
    const bool log = inLogSpace(numeric);
    const size_t n = c.numInputs(), nodes = c.numNodes();
    if (c.outputs.empty())
        return an.unusable = "the model has no outputs", an;
    std::vector<Leaf> inputs(n);
    for (size_t i = 0; i < n && i < ranges.size(); ++i) {
        inputs[i] = leafOf(ranges[i]);
        if (inputs[i].negative)
            return an.unusable = "input x[" + std::to_string(i) + "] is negative", an;
    }

    // Forward: rounding counts r, largest values v (at the batch's largest inputs), log ranges and
    // log errors e. Ids are topological.
    std::vector<double> r(nodes, 0), v(nodes, 0), e(nodes, 0);
    std::vector<LogRange> range(nodes);
    std::vector<uint8_t> leafAbsolute(nodes, 0); // a leaf whose conversion may be subnormal
    double largest = 0;
    for (NodeId id = 0; id < nodes; ++id) {
        const uint32_t a = c.a[id], b = c.b[id], cc = c.c[id];
        auto opLog = [&](LogRange out, double operandError, double extra) {
            range[id] = out;
            e[id] = operandError + kU * (out.magnitude() + extra);
        };
        switch (c.kind[id]) {
        case OpKind::Input:
        case OpKind::Const: {
            InputRange constant;
            if (c.kind[id] == OpKind::Const)
                widen(constant, c.constants[a]);
            const Leaf l = c.kind[id] == OpKind::Input ? inputs[a] : leafOf(constant);
            if (l.negative)
                return an.unusable = "a constant is negative", an;
            r[id] = l.rounds ? 1 : 0;
            v[id] = l.hi;
            range[id] = l.logs;
            e[id] = kU * l.logs.magnitude(); // the host's log, rounded to float
            leafAbsolute[id] = l.subnormal;
            break;
        }
        case OpKind::Zero: break;
        case OpKind::One: v[id] = 1, range[id] = {0, 0}; break;
        case OpKind::Plus:
            r[id] = std::max(r[a], r[b]) + 1;
            v[id] = v[a] + v[b];
            opLog(plus(range[a], range[b]), std::max(e[a], e[b]), kLogAddRounds);
            break;
        case OpKind::Times:
            r[id] = r[a] + r[b] + 1;
            v[id] = v[a] * v[b];
            opLog(times(range[a], range[b]), e[a] + e[b], 0);
            break;
        case OpKind::MulAdd: {
            r[id] = std::max(r[a] + r[b] + 1, r[cc]) + 1;
            v[id] = v[a] * v[b] + v[cc];
            const LogRange t = times(range[a], range[b]);
            const double et = e[a] + e[b] + kU * t.magnitude();
            opLog(plus(t, range[cc]), std::max(et, e[cc]), kLogAddRounds);
            break;
        }
        }
        largest = std::max(largest, v[id]);
    }
    const NodeId out = c.outputs[0];
    an.rounds = r[out];
    an.logError = e[out];
    if (!log && largest * (1 + gammaFloat32(an.rounds)) > kFltMax)
        return an.unusable = "values may overflow float32", an;

    // Backward, in reverse id order from the output: sensitivities g = ∂out/∂node at the largest
    // inputs (their logs bound an adjoint's from above), the least nonzero adjoint's log, and the
    // adjoint's rounding count rb and log error eb. A node's contributions are accumulated in any
    // order: each carries at most (contributions - 1) further roundings (Higham 2002 §4.2).
    std::vector<uint32_t> contributions(nodes, 0);
    std::vector<uint8_t> reached(nodes, 0);
    reached[out] = 1;
    contributions[out] = 1;
    for (NodeId id = static_cast<NodeId>(nodes); id-- > 0;)
        if (reached[id] && isOp(c.kind[id]))
            for (NodeId p : operandsOf(c, id))
                reached[p] = 1, ++contributions[p];
    std::vector<double> g(nodes, 0), gLo(nodes, kInf), rb(nodes, -kInf), eb(nodes, -kInf);
    g[out] = 1, gLo[out] = 0, rb[out] = 0, eb[out] = 0;
    double absolute = 0; // Σ over the rounded products and subnormal leaves of their sensitivity
    for (NodeId id = static_cast<NodeId>(nodes); id-- > 0;) {
        if (!reached[id])
            continue;
        const double extra = contributions[id] - 1.0;
        const double gMag = g[id] > 0 ? std::max(std::fabs(gLo[id]), logMagnitude(g[id])) : 0;
        rb[id] += extra;
        eb[id] += extra * kU * (gMag + kLogAddRounds);
        const OpKind k = c.kind[id];
        if (k == OpKind::Times || k == OpKind::MulAdd || leafAbsolute[id])
            absolute += g[id];
        if (!isOp(k))
            continue;
        const uint32_t a = c.a[id], b = c.b[id];
        // Contribution to `to`: this adjoint times the other operand `by` (or passed on as is).
        // A contribution that is always zero (an operand always zero) is exact and skipped.
        auto pass = [&](uint32_t to, std::optional<uint32_t> by) {
            const double factor = by ? v[*by] : 1;
            if (g[id] * factor == 0)
                return;
            g[to] += g[id] * factor;
            const double lo = by ? gLo[id] + range[*by].lo : gLo[id];
            gLo[to] = std::min(gLo[to], lo);
            rb[to] = std::max(rb[to], rb[id] + (by ? r[*by] + 1 : 0));
            // The log of the product is rounded once, at most u·|its log|.
            const double mag = std::max(std::fabs(lo), logMagnitude(g[id] * factor));
            eb[to] = std::max(eb[to], eb[id] + (by ? e[*by] + kU * mag : 0));
        };
        if (k == OpKind::Plus) {
            pass(a, std::nullopt), pass(b, std::nullopt);
        } else {
            pass(a, b), pass(b, a);
            if (k == OpKind::MulAdd)
                pass(c.c[id], std::nullopt);
        }
    }
    // An input's adjoint sums its Input nodes'; marginals read the indicators'.
    std::vector<double> inRb(n, -kInf), inEb(n, -kInf), inCount(n, 0);
    for (NodeId id = 0; id < nodes; ++id)
        if (c.kind[id] == OpKind::Input && reached[id]) {
            const uint32_t i = c.a[id];
            inRb[i] = std::max(inRb[i], rb[id]);
            inEb[i] = std::max(inEb[i], eb[id] + kU * (range[id].magnitude() + kLogAddRounds));
            ++inCount[i];
        }
    for (size_t i = 0; i < n; ++i) {
        if (inCount[i] == 0 || c.inputs[i].kind != InputKind::Indicator)
            continue;
        an.adjointRounds = std::max(an.adjointRounds, inRb[i] + inCount[i] - 1);
        an.adjointLogError = std::max(an.adjointLogError, inEb[i] + (inCount[i] - 1) * kU * kLogAddRounds);
    }
    an.underflow = kEta * (1 + gammaFloat32(an.rounds)) * absolute;
    return an;
}

ErrorBound float32Bound(const Float32Analysis &an, double y) {
    const ErrorBound none{kInf, kInf, kInf};
    if (!an.unusable.empty())
        return none;
    ErrorBound b;
    if (inLogSpace(an.numeric)) {
        if (!std::isfinite(y))
            return none;
        b.logAbsolute = an.logError;
        b.value = std::expm1(an.logError);
        b.marginals = std::expm1(an.logError + an.adjointLogError);
        return b;
    }
    // |ŷ - y| ≤ γ_R·y + A, so y ≥ (ŷ - A)/(1 + γ_R) and the relative error is at most γ_R + A/y.
    const double gR = gammaFloat32(an.rounds);
    if (!(y > an.underflow) || !std::isfinite(gR))
        return none;
    const double yLow = (y - an.underflow) / (1 + gR);
    b.value = gR + an.underflow / yLow;
    b.logAbsolute = b.value < 1 ? -std::log1p(-b.value) : kInf;
    // ĝ/ŷ = (g/y)(1 + θ_Rb) / (1 + θ_R + η/y): Higham 2002 Lemma 3.3's ratio with the underflow.
    const double below = 1 - b.value;
    b.marginals = below > 0 ? (1 + gammaFloat32(an.adjointRounds)) / below - 1 : kInf;
    return b;
}

} // namespace zbddc
