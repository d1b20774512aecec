// Small random circuits that exercise every op kind, shared leaves, constants, several outputs and
// unreachable nodes; and the comparison the CPU tests use against the reference evaluator.
#pragma once

#include "ir/circuit.h"
#include "ir/interpret.h"

#include "tests/catch.hpp"

#include <cmath>
#include <random>

namespace zbddc::test {

inline Circuit randomCircuit(std::mt19937 &rng, size_t numInputs, size_t numOps, size_t numOutputs) {
    Circuit c;
    for (size_t i = 0; i < numInputs; ++i)
        c.addInputInfo({InputKind::Free, kNone, kNone, 0.0, "x" + std::to_string(i)});
    for (uint32_t i = 0; i < numInputs; ++i)
        c.addInput(i);
    c.addZero();
    c.addOne();
    c.addConst(0.75);
    c.addInput(0); // a second Input node for x[0]: adjoints must add up over both
    std::uniform_real_distribution<double> u(0, 1);
    for (size_t k = 0; k < numOps; ++k) {
        const NodeId n = static_cast<NodeId>(c.numNodes());
        // Mostly recent operands (deep chains, like a ZBDD) with some far ones (sharing).
        auto pick = [&] {
            const double r = u(rng);
            const NodeId lo = r < 0.7 && n > 8 ? n - 8 : 0;
            return std::uniform_int_distribution<NodeId>(lo, n - 1)(rng);
        };
        // A factor is mostly a leaf (x in (0.05, 0.95), constants < 1, as in a ZBDD's typeA/typeB
        // ops) so that values neither overflow nor vanish in deep circuits.
        auto factor = [&] {
            const NodeId leaves = static_cast<NodeId>(numInputs + 4);
            return u(rng) < 0.8 ? std::uniform_int_distribution<NodeId>(0, leaves - 1)(rng) : pick();
        };
        const double r = u(rng);
        if (r < 0.45)
            c.addMulAdd(pick(), factor(), pick());
        else if (r < 0.75)
            c.addTimes(pick(), factor());
        else if (r < 0.95)
            c.addPlus(pick(), pick());
        else
            c.addConst(0.25 + u(rng));
    }
    for (size_t o = 0; o < numOutputs; ++o)
        c.addOutput(static_cast<NodeId>(c.numNodes() - 1 - 3 * o), "out" + std::to_string(o));
    return c;
}

// Inputs in (0.05, 0.95): positive, so log space applies.
inline std::vector<double> randomInputs(std::mt19937 &rng, size_t count) {
    std::uniform_real_distribution<double> u(0.05, 0.95);
    std::vector<double> x(count);
    for (double &v : x)
        v = u(rng);
    return x;
}

// Relative agreement; NaN never agrees, infinities only with themselves.
inline bool close(double got, double want, double rel = 1e-11) {
    if (std::isnan(got) || std::isnan(want))
        return false;
    if (std::isinf(want) || std::isinf(got))
        return got == want;
    return std::abs(got - want) <= rel * std::max(1.0, std::abs(want));
}

// Every semiring and numeric mode the CPU backend compiles (log space for the probabilistic ones).
struct Mode {
    Semiring semiring;
    Numeric numeric;
};
inline const Mode kModes[] = {{Semiring::SumProduct, Numeric::Float64},
                              {Semiring::MaxProduct, Numeric::Float64},
                              {Semiring::MaxSum, Numeric::Float64},
                              {Semiring::MinSum, Numeric::Float64},
                              {Semiring::SumProduct, Numeric::Log},
                              {Semiring::MaxProduct, Numeric::Log}};

} // namespace zbddc::test
