#include "compiler/frontends/circuits/circuit_lower.h"

#include <string>

namespace zbddc {
namespace {

// operands[lo, hi) combined pairwise into a balanced tree.
NodeId balanced(Circuit &c, LogicKind k, const std::vector<NodeId> &operands, size_t lo,
                size_t hi) {
    if (hi - lo == 1)
        return operands[lo];
    const size_t mid = lo + (hi - lo) / 2;
    const NodeId x = balanced(c, k, operands, lo, mid), y = balanced(c, k, operands, mid, hi);
    return k == LogicKind::And ? c.addTimes(x, y) : c.addPlus(x, y);
}

} // namespace

Circuit lowerLogicCircuit(const LogicCircuit &lc) {
    Circuit c;
    const uint32_t n = lc.numVars;
    for (uint32_t v = 1; v <= n; ++v)
        c.variables.push_back({"x" + std::to_string(v), {"0", "1"}});
    c.inputs.resize(4 * size_t{n});
    for (uint32_t v = 1; v <= n; ++v)
        for (bool positive : {false, true}) {
            InputInfo &lambda = c.inputs[indicatorInput(v, positive)];
            lambda.kind = InputKind::Indicator;
            lambda.variable = v - 1;
            lambda.state = positive;
            InputInfo &theta = c.inputs[weightInput(n, v, positive)];
            theta.kind = InputKind::Parameter;
            theta.value = 1.0;
            theta.name = (positive ? "w" : "w-") + std::to_string(v);
        }
    c.reserve(lc.numNodes() * 2 + 2);
    std::vector<NodeId> made(lc.numNodes(), kNone);
    std::vector<NodeId> operands;
    for (uint32_t i = 0; i < lc.numNodes(); ++i) {
        switch (lc.kind[i]) {
        case LogicKind::False:
            made[i] = c.addZero();
            break;
        case LogicKind::True:
            made[i] = c.addOne();
            break;
        case LogicKind::Literal: {
            const uint32_t v = literalVariable(lc.literal[i]);
            const bool positive = lc.literal[i] > 0;
            made[i] = c.addTimes(c.addInput(indicatorInput(v, positive)),
                                 c.addInput(weightInput(n, v, positive)));
            break;
        }
        case LogicKind::And:
        case LogicKind::Or: {
            operands.clear();
            for (uint32_t ch : lc.childrenOf(i))
                operands.push_back(made[ch]);
            made[i] = operands.empty() ? (lc.kind[i] == LogicKind::And ? c.addOne() : c.addZero())
                                       : balanced(c, lc.kind[i], operands, 0, operands.size());
            break;
        }
        }
    }
    c.addOutput(made[lc.root], "wmc");
    return c;
}

Status setLiteralWeights(Circuit &circuit, const LiteralWeights &weights) {
    const uint32_t n = literalVariableCount(circuit);
    if (weights.numVars() > n)
        return error("the weights name variable " + std::to_string(weights.numVars()) +
                     " and the circuit has " + std::to_string(n));
    for (uint32_t v = 1; v <= weights.numVars(); ++v) {
        circuit.inputs[weightInput(n, v, true)].value = weights.positive[v - 1];
        circuit.inputs[weightInput(n, v, false)].value = weights.negative[v - 1];
    }
    return Ok{};
}

} // namespace zbddc
