// Random circuits for the tests and the GPU benchmarks, from one generator with two shapes:
//   randomZddCircuit  ZBDD-shaped: a random reduced-looking ZBDD lowered with lowerZdd, so typeA
//                     and typeB ops exactly as real networks give them, one level per variable;
//   randomCircuit     a general DAG with every op kind and leaf, for semiring and backend coverage.
// Same shape and seed, same circuit: the benchmarks' figures depend on it (bench/results/NOTEBOOK.md).
#pragma once

#include "compiler/frontends/zdd/zdd_lower.h"
#include "ir/circuit.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace zbddc::testing {

// `vars` ZBDD variables of `width` nodes each: vars × width ops on about `vars` levels. A node's
// children are nodes of the next `reach` variables (the locality of real ZBDDs; a larger reach
// gives the long edges that zero-suppressed variables make) or a terminal.
struct ZddShape {
    uint32_t vars = 20;
    uint32_t width = 8;
    uint32_t roots = 1;
    uint32_t reach = 3;
};

// `ops` Plus/Times/MulAdd nodes over `inputs` inputs and the leaves Zero, One, a constant and a
// second Input node for x[0] (adjoints must add up over both); `outputs` outputs on the last nodes,
// so that some nodes are unreachable. Constants are valid in `semiring`.
struct CircuitShape {
    uint32_t inputs = 6;
    uint32_t ops = 100;
    uint32_t outputs = 2;
    Semiring semiring = Semiring::SumProduct;
};

inline Circuit randomZddCircuit(const ZddShape &shape, uint32_t seed) {
    std::mt19937 rng(seed);
    const uint32_t vars = shape.vars;
    ZddModel z;
    for (uint32_t v = 0; v < vars; ++v) {
        InputInfo in;
        in.kind = InputKind::Free;
        in.name = "x" + std::to_string(v);
        z.vars.push_back(in);
    }
    std::vector<std::vector<uint32_t>> byVar(vars); // node ids of each variable
    for (uint32_t v = vars; v-- > 0;) {
        std::vector<uint32_t> pool;
        for (uint32_t u = v + 1; u < std::min(vars, v + 1 + shape.reach); ++u)
            pool.insert(pool.end(), byVar[u].begin(), byVar[u].end());
        auto pick = [&](bool allowEmpty) -> uint32_t {
            const uint32_t r = rng() % 8;
            if (pool.empty() || r == 0)
                return allowEmpty && rng() % 2 ? kZddEmpty : kZddBase;
            return pool[rng() % pool.size()];
        };
        for (uint32_t k = 0; k < shape.width; ++k) {
            const uint32_t hi = pick(false), lo = pick(true);
            z.nodes.push_back({v, lo, hi});
            byVar[v].push_back(ZddModel::idOf(z.nodes.size() - 1));
        }
    }
    for (uint32_t r = 0; r < shape.roots; ++r) {
        z.roots.push_back(ZddModel::idOf(z.nodes.size() - 1 - r % z.nodes.size()));
        z.rootNames.push_back("r" + std::to_string(r));
    }
    return lowerZdd(z);
}

// One generator stream for a circuit and the inputs that follow it (see randomInputs).
inline Circuit randomCircuit(const CircuitShape &shape, std::mt19937 &rng) {
    std::uniform_real_distribution<double> value(0.25, 1.5);
    Circuit c;
    c.semiring = shape.semiring;
    for (uint32_t i = 0; i < shape.inputs; ++i)
        c.addInputInfo({InputKind::Free, kNone, kNone, 0.0, "x" + std::to_string(i)});
    std::vector<NodeId> pool;
    for (uint32_t i = 0; i < shape.inputs; ++i)
        pool.push_back(c.addInput(i));
    pool.push_back(c.addInput(0));
    pool.push_back(c.addZero());
    pool.push_back(c.addOne());
    pool.push_back(c.addConst(value(rng)));
    const size_t leaves = pool.size();
    for (uint32_t k = 0; k < shape.ops; ++k) {
        // Mostly recent operands, so the DAG is deep rather than one wide level.
        auto operand = [&]() -> NodeId {
            const size_t n = pool.size();
            return rng() % 4 ? pool[n - 1 - rng() % std::min<size_t>(n, 12)] : pool[rng() % n];
        };
        // The multiplicand is mostly a leaf (as in a ZBDD's typeA/typeB), sometimes the other
        // operand itself (x⊗x): products of two deep values would overflow within a few levels.
        const NodeId a = operand();
        const NodeId b = rng() % 16 ? pool[rng() % leaves] : a;
        switch (rng() % 4) {
        case 0:
            pool.push_back(c.addPlus(a, operand()));
            break;
        case 1:
            pool.push_back(c.addTimes(a, b));
            break;
        default:
            pool.push_back(c.addMulAdd(a, b, operand()));
            break;
        }
    }
    for (uint32_t o = 0; o < shape.outputs; ++o)
        c.addOutput(pool[pool.size() - 1 - o], "out" + std::to_string(o));
    return c;
}

inline Circuit randomCircuit(const CircuitShape &shape, uint32_t seed) {
    std::mt19937 rng(seed);
    return randomCircuit(shape, rng);
}

// Inputs in [lo, hi): positive, so log space applies, and products of many stay in range for
// float32.
inline std::vector<double> randomInputs(std::mt19937 &rng, size_t n, double lo = 0.5,
                                        double hi = 1.5) {
    std::uniform_real_distribution<double> u(lo, hi);
    std::vector<double> x(n);
    for (double &v : x)
        v = u(rng);
    return x;
}

inline std::vector<double> randomInputs(size_t n, uint32_t seed, double lo = 0.5, double hi = 1.5) {
    std::mt19937 rng(seed);
    return randomInputs(rng, n, lo, hi);
}

} // namespace zbddc::testing
