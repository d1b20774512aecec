// Baselines every later backend is compared with: reading .zdd text and the reference
// evaluator's speed on ZBDD-shaped circuits.
#include "bench/harness.h"
#include "compiler/frontends/zdd/zdd_format.h"
#include "compiler/frontends/zdd/zdd_lower.h"
#include "ir/interpret.h"

#include <random>

using namespace zbddc;

namespace {

// A ZBDD-shaped random MLF: each node's children come from the last `window` nodes, so the
// structure has the long, narrow-then-wide level profile of compiled networks.
ZddModel layeredZdd(uint32_t nodes, uint32_t vars, uint32_t seed) {
    std::mt19937 rng(seed);
    ZddModel m;
    for (uint32_t v = 0; v < vars; ++v)
        m.vars.push_back({InputKind::Parameter, kNone, kNone, 0.5 + 0.5 * (v % 7) / 7.0, ""});
    std::vector<uint32_t> varOf;
    for (uint32_t i = 0; i < nodes; ++i) {
        const uint32_t var = vars - 1 - static_cast<uint32_t>(uint64_t(i) * vars / nodes);
        auto child = [&](bool allowEmpty) -> uint32_t {
            for (int tries = 0; tries < 8 && i > 0; ++tries) {
                const uint32_t back = 1 + rng() % std::min<uint32_t>(i, 64);
                if (varOf[i - back] > var)
                    return ZddModel::idOf(i - back);
            }
            return allowEmpty && rng() % 3 == 0 ? kZddEmpty : kZddBase;
        };
        const uint32_t lo = child(true), hi = child(false);
        m.nodes.push_back({var, lo, hi});
        varOf.push_back(var);
    }
    m.roots = {ZddModel::idOf(nodes - 1)};
    m.rootNames = {"f"};
    return m;
}

void readAndEvaluate(bench::Context &ctx) {
    for (uint32_t n : {10'000u, 100'000u, 1'000'000u}) {
        const ZddModel m = layeredZdd(n, std::max(8u, n / 50), 7);
        const std::string text = writeZddToString(m);
        const std::string size = std::to_string(n);
        const double read = ctx.timeMedian([&] { (void)parseZdd(text, "bench.zdd"); }, 3);
        ctx.record("read .zdd, " + size + " nodes", text.size() / read / 1e6, "MB/s");
        const Circuit c = lowerZdd(m);
        std::vector<double> x(m.vars.size());
        for (size_t i = 0; i < x.size(); ++i)
            x[i] = m.vars[i].value;
        const double fwd = ctx.timeMedian([&] { (void)evaluate(c, x, Semiring::SumProduct); });
        ctx.record("forward, " + size + " nodes", fwd / n * 1e9, "ns/op");
        auto e = evaluate(c, x, Semiring::SumProduct);
        const double bwd = ctx.timeMedian([&] { (void)inputAdjoints(c, *e, 0); });
        ctx.record("backward, " + size + " nodes", bwd / n * 1e9, "ns/op");
        const double logFwd = ctx.timeMedian([&] { (void)evaluate(c, x, Semiring::SumProduct, Numeric::Log); });
        ctx.record("forward log space, " + size + " nodes", logFwd / n * 1e9, "ns/op");
    }
}

} // namespace

ZBDDC_BENCHMARK("reference evaluator", readAndEvaluate);
