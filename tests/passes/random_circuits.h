// Random circuits for the pass tests: ZBDD-shaped ones (a random ZddModel lowered, the shape the
// real networks have) and general ones (Plus/Times/MulAdd over any earlier node, constants).
#pragma once

#include "compiler/frontends/zdd/zdd_lower.h"
#include "ir/circuit.h"

#include <algorithm>
#include <random>

namespace zbddc::test {

// `nodes` ZBDD nodes over `vars` variables; each node's children are earlier nodes or terminals
// whose variables are greater, about a quarter with lo = the empty terminal (typeB).
inline Circuit randomZddCircuit(uint32_t vars, uint32_t nodes, uint32_t roots, uint32_t seed) {
    std::mt19937 rng(seed);
    ZddModel m;
    for (uint32_t v = 0; v < vars; ++v)
        m.vars.push_back(InputInfo{InputKind::Free, kNone, kNone, 0.0, "x" + std::to_string(v)});
    auto varOf = [&](uint32_t id) { return id < 2 ? vars : m.node(id).var; };
    auto pick = [&](uint32_t n) {
        // Prefer recent nodes (a ZBDD's sharing is local) but reach back anywhere.
        if (n == 0 || rng() % 8 == 0)
            return kZddBase;
        const uint32_t back = std::min<uint32_t>(n, 1 + rng() % (rng() % 4 == 0 ? n : 16));
        return ZddModel::idOf(n - back);
    };
    while (m.nodes.size() < nodes) {
        const uint32_t n = static_cast<uint32_t>(m.nodes.size());
        const uint32_t hi = pick(n);
        const uint32_t lo = rng() % 4 == 0 ? kZddEmpty : pick(n);
        const uint32_t top = std::min(varOf(hi), lo == kZddEmpty ? vars : varOf(lo));
        if (top == 0)
            continue;
        m.nodes.push_back(ZddNode{static_cast<uint32_t>(rng() % top), lo, hi});
    }
    for (uint32_t r = 0; r < roots; ++r) {
        m.roots.push_back(ZddModel::idOf(nodes - 1 - r % nodes));
        m.rootNames.push_back("r" + std::to_string(r));
    }
    return lowerZdd(m);
}

// General circuits: every op kind, operands anywhere earlier, inputs used as either operand.
inline Circuit randomCircuit(uint32_t inputs, uint32_t ops, uint32_t seed) {
    std::mt19937 rng(seed);
    Circuit c;
    for (uint32_t i = 0; i < inputs; ++i) {
        c.addInputInfo(InputInfo{InputKind::Free, kNone, kNone, 0.0, "x" + std::to_string(i)});
        c.addInput(i);
    }
    c.addZero();
    c.addOne();
    c.addConst(0.5);
    for (uint32_t k = 0; k < ops; ++k) {
        const auto n = static_cast<uint32_t>(c.numNodes());
        auto any = [&] { return static_cast<NodeId>(rng() % 4 == 0 ? rng() % n : n - 1 - rng() % std::min(n, 8u)); };
        switch (rng() % 3) {
        case 0: c.addPlus(any(), any()); break;
        case 1: c.addTimes(any(), any()); break;
        default: c.addMulAdd(any(), any(), any()); break;
        }
    }
    c.addOutput(static_cast<NodeId>(c.numNodes() - 1), "last");
    c.addOutput(static_cast<NodeId>(c.numNodes() / 2), "middle");
    return c;
}

} // namespace zbddc::test
