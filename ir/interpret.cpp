#include "ir/interpret.h"
#include "ir/optimal_term.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace zbddc {

const char *numericName(Numeric n) {
    switch (n) {
    case Numeric::Float64: return "float64";
    case Numeric::Log: return "log";
    case Numeric::Float32: return "float32";
    case Numeric::Log32: return "log32";
    }
    return "?";
}

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double logAdd(double p, double q) {
    if (p == kNegInf)
        return q;
    if (q == kNegInf)
        return p;
    const double hi = std::max(p, q);
    return hi + std::log1p(std::exp(std::min(p, q) - hi));
}

// The semiring's arithmetic on the representation in use (linear or log), in float64 or float32.
// Float32 rounds every result computed in double to the nearest float: for + and × of floats
// that is the correctly rounded float32 result (double rounding is innocuous, Figueroa 1995).
struct Arith {
    SemiringOps ring;
    bool log;
    bool f32 = false;

    double round(double v) const { return f32 ? static_cast<double>(static_cast<float>(v)) : v; }
    double zero() const { return log ? kNegInf : ring.zero(); }
    double one() const { return log ? 0.0 : ring.one(); }
    double plus(double p, double q) const {
        if (!log)
            return round(ring.plus(p, q));
        return round(ring.kind == Semiring::SumProduct ? logAdd(p, q) : std::max(p, q));
    }
    double times(double p, double q) const { return round(log ? p + q : ring.times(p, q)); }
    double lift(double v) const { return round(log ? std::log(v) : v); }
    bool better(double p, double q) const { return log ? p > q : ring.better(p, q); }
};

} // namespace

Result<Evaluation> evaluate(const Circuit &c, std::span<const double> x, Semiring semiring,
                            Numeric numeric) {
    if (x.size() != c.numInputs())
        return error("expected " + std::to_string(c.numInputs()) + " inputs, got " +
                     std::to_string(x.size()));
    const bool log = inLogSpace(numeric);
    if (log && semiring != Semiring::SumProduct && semiring != Semiring::MaxProduct)
        return error("log space applies to product semirings; " +
                     std::string(semiringName(semiring)) + " is already additive");
    if (log)
        for (size_t i = 0; i < x.size(); ++i)
            if (!(x[i] >= 0))
                return error("input x[" + std::to_string(i) + "] is negative or NaN; log space needs x >= 0");
    const Arith ar{SemiringOps{semiring}, log, isFloat32(numeric)};

    Evaluation e{semiring, numeric, std::vector<double>(c.numNodes())};
    std::vector<double> &v = e.values;
    for (NodeId id = 0; id < c.numNodes(); ++id) {
        switch (c.kind[id]) {
        case OpKind::Input: v[id] = ar.lift(x[c.a[id]]); break;
        case OpKind::Zero: v[id] = ar.zero(); break;
        case OpKind::One: v[id] = ar.one(); break;
        case OpKind::Const: v[id] = ar.lift(c.constants[c.a[id]]); break;
        case OpKind::Plus: v[id] = ar.plus(v[c.a[id]], v[c.b[id]]); break;
        case OpKind::Times: v[id] = ar.times(v[c.a[id]], v[c.b[id]]); break;
        case OpKind::MulAdd: v[id] = ar.plus(ar.times(v[c.a[id]], v[c.b[id]]), v[c.c[id]]); break;
        }
    }
    return e;
}

std::vector<double> inputAdjoints(const Circuit &c, const Evaluation &e, size_t output) {
    const Arith ar{SemiringOps{e.semiring}, inLogSpace(e.numeric), isFloat32(e.numeric)};
    const std::vector<double> &v = e.values;
    std::vector<double> adj(c.numNodes(), ar.zero());
    adj[c.outputs[output]] = ar.one();
    // Reverse id order is a reverse topological order: every reader of a node runs before it.
    for (NodeId id = static_cast<NodeId>(c.numNodes()); id-- > 0;) {
        const double g = adj[id];
        const uint32_t p = c.a[id], q = c.b[id], r = c.c[id];
        switch (c.kind[id]) {
        case OpKind::Plus:
            adj[p] = ar.plus(adj[p], g);
            adj[q] = ar.plus(adj[q], g);
            break;
        case OpKind::Times:
            adj[p] = ar.plus(adj[p], ar.times(g, v[q]));
            adj[q] = ar.plus(adj[q], ar.times(g, v[p]));
            break;
        case OpKind::MulAdd:
            adj[p] = ar.plus(adj[p], ar.times(g, v[q]));
            adj[q] = ar.plus(adj[q], ar.times(g, v[p]));
            adj[r] = ar.plus(adj[r], g);
            break;
        default: break;
        }
    }
    std::vector<double> result(c.numInputs(), ar.zero());
    for (NodeId id = 0; id < c.numNodes(); ++id)
        if (c.kind[id] == OpKind::Input)
            result[c.a[id]] = ar.plus(result[c.a[id]], adj[id]);
    return result;
}

std::vector<uint32_t> traceback(const Circuit &c, const Evaluation &e, size_t output,
                                std::optional<bool> *tied) {
    const std::optional<Semiring> ring = tieRing(e.semiring, e.numeric);
    TieWatch watch{ring.value_or(e.semiring)};
    // Over the circuit's nodes, each visited once (a term may share a node's subterm).
    struct NodeWalk {
        const Circuit &c;
        const std::vector<double> &v;
        Arith ar;
        std::vector<uint8_t> seen;
        TieWatch *watch;
        bool firstVisit(uint32_t id) { return !std::exchange(seen[id], 1); }
        uint32_t input(uint32_t id) const { return c.kind[id] == OpKind::Input ? c.a[id] : kNone; }
        bool isOp(uint32_t id) const { return zbddc::isOp(c.kind[id]); }
        void pushChosen(uint32_t id, std::vector<uint32_t> &pending) const {
            const uint32_t p = c.a[id], q = c.b[id], r = c.c[id];
            pushChosenOperands(ar, c.kind[id], p, q, r, v[p], v[q],
                               c.kind[id] == OpKind::MulAdd ? v[r] : 0.0, pending, watch);
        }
    } walk{c, e.values, Arith{SemiringOps{e.semiring}, inLogSpace(e.numeric), isFloat32(e.numeric)},
           std::vector<uint8_t>(c.numNodes(), 0), tied && ring ? &watch : nullptr};
    std::vector<uint32_t> chosen, pending;
    walkOptimalTerm(walk, c.outputs[output], c.numNodes(), pending, [&](uint32_t input) {
        chosen.push_back(input);
        return true;
    });
    std::sort(chosen.begin(), chosen.end());
    chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
    if (tied && ring)
        *tied = watch.met;
    return chosen;
}

} // namespace zbddc
