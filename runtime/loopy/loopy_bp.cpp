#include "runtime/loopy/loopy_bp.h"

#include "support/name_table.h"
#include "support/threads.h"

#include <algorithm>
#include <cmath>
#include <thread>

namespace zbddc {

namespace {
constexpr Named<LoopyUpdateOrder> kUpdateOrderNames[] = {{LoopyUpdateOrder::Flooding, "flooding"},
                                                        {LoopyUpdateOrder::Residual, "residual"}};
} // namespace

std::optional<LoopyUpdateOrder> parseLoopyUpdateOrder(std::string_view name) {
    return valueNamed(kUpdateOrderNames, name);
}

const char *loopyUpdateOrderName(LoopyUpdateOrder s) { return nameIn(kUpdateOrderNames, s); }

namespace {

class Instance {
  public:
    Instance(const FactorGraph &g, const Evidence &evidence, const LoopyOptions &o,
             const LinearTables *linear, unsigned threads, LoopyCase &out)
        : g_(g), evidence_(evidence), o_(o), linear_(linear), threads_(threads), out_(out) {
        sums_.finite.resize(g.stateOffset.back());
        sums_.zeros.resize(g.stateOffset.back());
        // Uniform messages to start: log(1/d) for sum-product, 0 for max-product.
        out.messages.resize(g.messageEntries());
        for (uint32_t e = 0; e < g.numEdges(); ++e) {
            const uint32_t d = g.domainSizes[g.edgeVariable[e]];
            const double uniform =
                o.semiring == LoopySemiring::SumProduct ? -std::log(double(d)) : 0;
            std::fill_n(out.messages.begin() + g.messageOffset[e], d, uniform);
        }
        update_.resize(g.messageEntries());
        residual_.assign(g.numEdges(), 0);
        vanished_.assign(g.factors.size(), 0);
    }

    void run() {
        if (o_.updateOrder == LoopyUpdateOrder::Flooding)
            flood();
        else
            residualRounds();
        finishLoopyCase(g_, evidence_, o_.semiring, out_);
    }

  private:
    void sumAll() {
        inRanges(threads_, g_.numVariables(), [&](size_t b, size_t e) {
            sumIntoVariables(g_, evidence_, out_.messages, uint32_t(b), uint32_t(e), sums_);
        });
    }

    // Factor f's damped update into update_, its edges' residuals (undamped update against the
    // current message) into residual_.
    void updateFactor(uint32_t f) {
        const uint32_t first = g_.factorEdgeStart[f], last = g_.factorEdgeStart[f + 1];
        const uint64_t base = g_.messageOffset[first], size = g_.messageOffset[last] - base;
        std::span<double> next(update_.data() + base, size);
        vanished_[f] =
            !updateFactorMessages(g_, f, sums_, out_.messages, o_.semiring, next, linear_);
        for (uint32_t e = first; e < last; ++e) {
            const uint64_t at = g_.messageOffset[e], d = g_.messageOffset[e + 1] - at;
            std::span<const double> old(out_.messages.data() + at, d);
            std::span<double> fresh(update_.data() + at, d);
            residual_[e] = messageResidual(old, fresh, o_.semiring);
            if (o_.damping > 0 && !vanished_[f]) { // geometric: old^d · new^(1-d)
                for (uint64_t x = 0; x < d; ++x)
                    fresh[x] = std::isinf(fresh[x]) || std::isinf(old[x])
                                   ? -INFINITY
                                   : (1 - o_.damping) * fresh[x] + o_.damping * old[x];
                vanished_[f] |= !normaliseMessage(fresh, o_.semiring);
            }
        }
    }

    void updateFactors(const std::vector<uint32_t> &factors) {
        inRanges(threads_, factors.size(), [&](size_t b, size_t e) {
            for (size_t i = b; i < e; ++i)
                updateFactor(factors[i]);
        });
    }

    // Records the iteration; true when the run stops here (converged or a message vanished).
    bool finished(uint32_t iteration) {
        out_.iterations = iteration;
        out_.maxResidual =
            residual_.empty() ? 0 : *std::max_element(residual_.begin(), residual_.end());
        out_.vanished = std::find(vanished_.begin(), vanished_.end(), 1) != vanished_.end();
        out_.converged = !out_.vanished && out_.maxResidual < o_.tolerance;
        return out_.vanished || out_.converged;
    }

    void flood() {
        std::vector<uint32_t> all(g_.factors.size());
        for (uint32_t f = 0; f < all.size(); ++f)
            all[f] = f;
        for (uint32_t it = 1; it <= o_.maxIterations; ++it) {
            sumAll();
            updateFactors(all);
            if (finished(it))
                return;
            out_.messages.swap(update_);
        }
    }

    void residualRounds() {
        std::vector<uint8_t> dirty(g_.factors.size(), 1);
        std::vector<uint32_t> work;
        for (uint32_t round = 1; round <= o_.maxIterations; ++round) {
            sumAll();
            work.clear();
            for (uint32_t f = 0; f < dirty.size(); ++f)
                if (dirty[f])
                    work.push_back(f);
            updateFactors(work);
            std::fill(dirty.begin(), dirty.end(), 0);
            if (finished(round))
                return;
            const double threshold = out_.maxResidual * kResidualRoundShare;
            for (uint32_t e = 0; e < g_.numEdges(); ++e) {
                if (residual_[e] < threshold || residual_[e] < o_.tolerance)
                    continue;
                std::copy(update_.begin() + g_.messageOffset[e],
                          update_.begin() + g_.messageOffset[e + 1],
                          out_.messages.begin() + g_.messageOffset[e]);
                // The sender again (its damped update moved) and every factor this message
                // reaches through its variable.
                dirty[g_.edgeFactor[e]] = 1;
                const uint32_t v = g_.edgeVariable[e];
                for (uint32_t i = g_.variableEdgeStart[v]; i < g_.variableEdgeStart[v + 1]; ++i)
                    dirty[g_.edgeFactor[g_.variableEdges[i]]] = 1;
            }
        }
    }

    const FactorGraph &g_;
    const Evidence &evidence_;
    const LoopyOptions &o_;
    const LinearTables *linear_; // sum-product only
    unsigned threads_;
    LoopyCase &out_;
    VariableSums sums_;
    std::vector<double> update_;
    std::vector<double> residual_;
    std::vector<uint8_t> vanished_;
};

} // namespace

namespace {

// Σ_f Σ_x b_f(x) (log φ_f(x) - log b_f(x)): the factors' share of the Bethe free energy.
double factorTerms(const FactorGraph &g, const VariableSums &sums, LoopyCase &c) {
    std::vector<double> belief;
    double total = 0;
    for (uint32_t f = 0; f < g.factors.size(); ++f) {
        const std::vector<double> &phi = g.factors[f].logValues;
        belief.resize(phi.size());
        factorBeliefLog(g, f, sums, c.messages, belief);
        if (!normaliseMessage(belief, LoopySemiring::SumProduct)) {
            c.vanished = true;
            return -INFINITY;
        }
        for (size_t x = 0; x < phi.size(); ++x)
            if (!std::isinf(belief[x]))
                total += std::exp(belief[x]) * (phi[x] - belief[x]);
    }
    return total;
}

} // namespace

void finishLoopyCase(const FactorGraph &g, const Evidence &evidence, LoopySemiring semiring,
                     LoopyCase &c) {
    VariableSums sums{std::vector<double>(g.stateOffset.back()),
                      std::vector<uint32_t>(g.stateOffset.back())};
    sumIntoVariables(g, evidence, c.messages, 0, uint32_t(g.numVariables()), sums);
    const bool sum = semiring == LoopySemiring::SumProduct;
    c.beliefs.resize(g.stateOffset.back());
    double entropyTerms = 0; // Σ_v (d_v - 1) Σ_x b log b
    for (uint32_t v = 0; v < g.numVariables(); ++v) {
        std::span<double> b(c.beliefs.data() + g.stateOffset[v], g.domainSizes[v]);
        for (uint32_t x = 0; x < b.size(); ++x) {
            const uint64_t s = g.stateOffset[v] + x;
            b[x] = sums.zeros[s] ? -INFINITY : sums.finite[s];
        }
        if (!normaliseMessage(b, semiring)) {
            c.vanished = true;
            c.converged = false;
            return;
        }
        for (double &p : b) {
            if (sum && !std::isinf(p))
                entropyTerms += (double(g.degree(v)) - 1) * std::exp(p) * p;
            p = std::exp(p);
        }
    }
    if (sum)
        c.logPartition = entropyTerms + factorTerms(g, sums, c);
}

std::vector<LoopyCase> runLoopyBp(const FactorGraph &graph, std::span<const Evidence> cases,
                                  const LoopyOptions &options) {
    std::vector<LoopyCase> out(cases.size());
    const bool sum = options.semiring == LoopySemiring::SumProduct;
    const LinearTables linear = sum ? linearTables(graph) : LinearTables{};
    const LinearTables *tables = sum ? &linear : nullptr;
    const unsigned threads = threadsOrCores(options.threads);
    if (cases.size() >= threads) { // whole instances per thread: no synchronisation at all
        onThreads(threads, [&](size_t t) {
            for (size_t i = t; i < cases.size(); i += threads)
                Instance(graph, cases[i], options, tables, 1, out[i]).run();
        });
    } else {
        for (size_t i = 0; i < cases.size(); ++i)
            Instance(graph, cases[i], options, tables, threads, out[i]).run();
    }
    return out;
}

} // namespace zbddc
