#include "ir/circuit.h"
#include "ir/number_text.h"

#include <cassert>
#include <cmath>
#include <ostream>

namespace zbddc {

const char *opKindName(OpKind kind) {
    switch (kind) {
    case OpKind::Input: return "input";
    case OpKind::Zero: return "zero";
    case OpKind::One: return "one";
    case OpKind::Const: return "const";
    case OpKind::Plus: return "plus";
    case OpKind::Times: return "times";
    case OpKind::MulAdd: return "muladd";
    }
    return "?";
}

const char *inputKindName(InputKind kind) {
    switch (kind) {
    case InputKind::Indicator: return "indicator";
    case InputKind::Parameter: return "parameter";
    case InputKind::Free: return "free";
    }
    return "?";
}

NodeId Circuit::append(OpKind k, uint32_t x, uint32_t y, uint32_t z) {
    assert(kind.size() < kNone && "circuit exceeds 2^32-1 nodes");
    auto id = static_cast<NodeId>(kind.size());
    kind.push_back(k);
    a.push_back(x);
    b.push_back(y);
    c.push_back(z);
    return id;
}

NodeId Circuit::addInput(uint32_t inputIndex) { return append(OpKind::Input, inputIndex, kNone, kNone); }
NodeId Circuit::addZero() { return append(OpKind::Zero, kNone, kNone, kNone); }
NodeId Circuit::addOne() { return append(OpKind::One, kNone, kNone, kNone); }

NodeId Circuit::addConst(double value) {
    constants.push_back(value);
    return append(OpKind::Const, static_cast<uint32_t>(constants.size() - 1), kNone, kNone);
}

NodeId Circuit::addPlus(NodeId x, NodeId y) { return append(OpKind::Plus, x, y, kNone); }
NodeId Circuit::addTimes(NodeId x, NodeId y) { return append(OpKind::Times, x, y, kNone); }
NodeId Circuit::addMulAdd(NodeId x, NodeId y, NodeId z) { return append(OpKind::MulAdd, x, y, z); }

uint32_t Circuit::addInputInfo(InputInfo info) {
    inputs.push_back(std::move(info));
    return static_cast<uint32_t>(inputs.size() - 1);
}

void Circuit::addOutput(NodeId node, std::string name) {
    outputs.push_back(node);
    outputNames.push_back(std::move(name));
}

void Circuit::reserve(size_t nodes) {
    kind.reserve(nodes);
    a.reserve(nodes);
    b.reserve(nodes);
    c.reserve(nodes);
}

std::vector<uint32_t> parentCounts(const Circuit &c) {
    std::vector<uint32_t> parents(c.numNodes(), 0);
    for (NodeId id = 0; id < c.numNodes(); ++id)
        for (NodeId p : operandsOf(c, id))
            ++parents[p];
    return parents;
}

static std::string nodeError(NodeId id, const std::string &what) {
    return "node " + std::to_string(id) + ": " + what;
}

static Status verifyConstant(Semiring s, double v, NodeId id) {
    if (std::isnan(v))
        return error(nodeError(id, "constant is NaN"));
    switch (s) {
    case Semiring::SumProduct: // any finite real
        if (!std::isfinite(v))
            return error(nodeError(id, "constant is not finite in sum-product"));
        break;
    case Semiring::MaxProduct: // max must stay monotone under ×: non-negative values only
        if (!std::isfinite(v) || v < 0)
            return error(nodeError(id, "constant must be finite and >= 0 in max-product"));
        break;
    case Semiring::MaxSum: // +inf would meet the zero (-inf) in ⊗ and give NaN
        if (v == std::numeric_limits<double>::infinity())
            return error(nodeError(id, "constant +inf is not allowed in max-sum"));
        break;
    case Semiring::MinSum:
        if (v == -std::numeric_limits<double>::infinity())
            return error(nodeError(id, "constant -inf is not allowed in min-sum"));
        break;
    case Semiring::MinSumInt64: // refused for the whole circuit by verify(Circuit)
        break;
    }
    return Ok{};
}

Status verify(const Circuit &c) {
    const size_t n = c.numNodes();
    if (c.a.size() != n || c.b.size() != n || c.c.size() != n)
        return error("operand arrays differ in length from the kind array");
    if (n >= kNone)
        return error("circuit has more than 2^32-1 nodes");
    if (c.semiring == Semiring::MinSumInt64) // circuits evaluate in float64
        return error("min-sum-int64 is the elimination route's semiring, not a circuit's");
    for (NodeId id = 0; id < n; ++id) {
        const OpKind k = c.kind[id];
        if (static_cast<uint8_t>(k) > static_cast<uint8_t>(OpKind::MulAdd))
            return error(nodeError(id, "unknown op kind"));
        if (k == OpKind::Input && c.a[id] >= c.inputs.size())
            return error(nodeError(id, "input index out of range"));
        if (k == OpKind::Const) {
            if (c.a[id] >= c.constants.size())
                return error(nodeError(id, "constant index out of range"));
            if (auto s = verifyConstant(c.semiring, c.constants[c.a[id]], id); !s)
                return s;
        }
        for (NodeId p : operandsOf(c, id))
            if (p >= id)
                return error(nodeError(id, "operand " + std::to_string(p) +
                                               " is not an earlier node (cycle or forward reference)"));
    }
    for (size_t i = 0; i < c.inputs.size(); ++i) {
        const InputInfo &in = c.inputs[i];
        const std::string where = "input x[" + std::to_string(i) + "]: ";
        if (in.kind == InputKind::Indicator) {
            if (in.variable >= c.variables.size())
                return error(where + "indicator of an unknown variable");
            if (in.state >= c.variables[in.variable].states.size())
                return error(where + "indicator of an unknown state");
        } else if (in.kind == InputKind::Parameter) {
            if (!std::isfinite(in.value) || in.value < 0)
                return error(where + "parameter value must be a finite non-negative number");
        }
    }
    if (c.outputNames.size() != c.outputs.size())
        return error("output names and outputs differ in number");
    for (NodeId o : c.outputs)
        if (o >= n)
            return error("output " + std::to_string(o) + " is not a node");
    return Ok{};
}


static void dumpInput(const Circuit &c, uint32_t i, std::ostream &out) {
    const InputInfo &in = c.inputs[i];
    out << "x" << i << " " << inputKindName(in.kind);
    if (in.kind == InputKind::Indicator && in.variable < c.variables.size()) {
        const Variable &v = c.variables[in.variable];
        out << " " << v.name << "=" << (in.state < v.states.size() ? v.states[in.state] : "?");
    } else if (in.kind == InputKind::Parameter) {
        out << " " << shortestText(in.value);
    }
    if (!in.name.empty())
        out << " \"" << in.name << "\"";
    out << "\n";
}

void dump(const Circuit &c, std::ostream &out) {
    out << "circuit " << semiringName(c.semiring) << " nodes=" << c.numNodes()
        << " inputs=" << c.numInputs() << " outputs=" << c.numOutputs() << "\n";
    for (uint32_t i = 0; i < c.inputs.size(); ++i)
        dumpInput(c, i, out);
    for (NodeId id = 0; id < c.numNodes(); ++id) {
        const OpKind k = c.kind[id];
        out << "%" << id << " = " << opKindName(k);
        if (k == OpKind::Input)
            out << " x" << c.a[id];
        else if (k == OpKind::Const)
            out << " " << shortestText(c.constants[c.a[id]]);
        const NodeOperands ops = operandsOf(c, id);
        for (int i = 0; i < ops.count; ++i)
            out << (i ? ", %" : " %") << ops.ids[i];
        out << "\n";
    }
    for (size_t i = 0; i < c.outputs.size(); ++i) {
        out << "output %" << c.outputs[i];
        if (!c.outputNames[i].empty())
            out << " \"" << c.outputNames[i] << "\"";
        out << "\n";
    }
}

} // namespace zbddc
