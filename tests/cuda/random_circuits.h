// Random circuits for backend tests and benchmarks: ZBDD-shaped ones (a random reduced-looking
// ZBDD lowered with lowerZdd, so typeA/typeB ops exactly as Minato et al. 2011 evaluates them) and
// general DAGs using every op kind and leaf, for semiring coverage.
#pragma once

#include "compiler/frontends/zdd/zdd_lower.h"
#include "ir/circuit.h"

#include <algorithm>
#include <random>
#include <vector>

namespace zbddc::testing {

// `width` nodes per ZBDD variable, `vars` variables: about vars × width nodes and vars levels.
// Children come from the next few variables' nodes (locality like real ZBDDs), or the terminals.
inline Circuit randomZddCircuit(uint32_t vars, uint32_t width, uint32_t seed, uint32_t roots = 1) {
    std::mt19937 rng(seed);
    ZddModel z;
    for (uint32_t v = 0; v < vars; ++v) {
        InputInfo in;
        in.kind = InputKind::Free;
        z.vars.push_back(in);
    }
    std::vector<std::vector<uint32_t>> byVar(vars); // node ids of each variable
    for (uint32_t v = vars; v-- > 0;) {
        std::vector<uint32_t> pool;
        for (uint32_t u = v + 1; u < std::min(vars, v + 4); ++u)
            pool.insert(pool.end(), byVar[u].begin(), byVar[u].end());
        auto pick = [&](bool allowEmpty) -> uint32_t {
            const uint32_t r = rng() % 8;
            if (pool.empty() || r == 0)
                return allowEmpty && rng() % 2 ? kZddEmpty : kZddBase;
            return pool[rng() % pool.size()];
        };
        for (uint32_t k = 0; k < width; ++k) {
            const uint32_t hi = pick(false), lo = pick(true);
            z.nodes.push_back({v, lo, hi});
            byVar[v].push_back(ZddModel::idOf(z.nodes.size() - 1));
        }
    }
    for (uint32_t r = 0; r < roots; ++r) {
        z.roots.push_back(ZddModel::idOf(z.nodes.size() - 1 - r % z.nodes.size()));
        z.rootNames.push_back("r" + std::to_string(r));
    }
    return lowerZdd(z);
}

// A general DAG of `ops` nodes over `inputs` inputs with every op kind, Zero/One/Const leaves,
// repeated operands (x⊗x) and `outputs` outputs. Constants are valid in `semiring`.
inline Circuit randomDag(uint32_t inputs, uint32_t ops, uint32_t seed, Semiring semiring,
                         uint32_t outputs = 2) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> value(0.25, 1.5);
    Circuit c;
    c.semiring = semiring;
    for (uint32_t i = 0; i < inputs; ++i)
        c.addInputInfo({});
    std::vector<NodeId> pool;
    for (uint32_t i = 0; i < inputs; ++i)
        pool.push_back(c.addInput(i));
    pool.push_back(c.addInput(0)); // a second Input node for x[0]: adjoints must sum over both
    pool.push_back(c.addZero());
    pool.push_back(c.addOne());
    pool.push_back(c.addConst(value(rng)));
    const size_t leaves = pool.size();
    for (uint32_t k = 0; k < ops; ++k) {
        // Mostly recent operands, so the DAG is deep rather than one wide level.
        auto operand = [&]() -> NodeId {
            const size_t n = pool.size();
            return rng() % 4 ? pool[n - 1 - rng() % std::min<size_t>(n, 12)] : pool[rng() % n];
        };
        // The multiplicand is mostly a leaf (as in Minato et al. 2011's typeA/typeB), sometimes the
        // other operand itself (x⊗x): products of two deep values would overflow within a few
        // levels.
        const NodeId a = operand();
        const NodeId b = rng() % 16 ? pool[rng() % leaves] : a;
        switch (rng() % 4) {
        case 0: pool.push_back(c.addPlus(a, operand())); break;
        case 1: pool.push_back(c.addTimes(a, b)); break;
        default: pool.push_back(c.addMulAdd(a, b, operand())); break;
        }
    }
    for (uint32_t o = 0; o < outputs; ++o)
        c.addOutput(pool[pool.size() - 1 - o]);
    return c;
}

// Inputs in [lo, hi), so products of many stay in range for linear float types.
inline std::vector<double> randomInputs(size_t n, uint32_t seed, double lo = 0.5, double hi = 1.5) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(lo, hi);
    std::vector<double> x(n);
    for (double &v : x)
        v = u(rng);
    return x;
}

} // namespace zbddc::testing
