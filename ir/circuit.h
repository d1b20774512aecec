// The Circuit: a DAG of scalar ops over a commutative semiring, stored as flat arrays indexed by
// 32-bit node ids (structure of arrays; sized for 10^8 nodes, 13 bytes each). Operands always have
// smaller ids than the node that reads them, so id order is a topological order.
#pragma once

#include "ir/result.h"
#include "ir/semiring.h"

#include <cstdint>
#include <iosfwd>
#include <limits>
#include <string>
#include <vector>

namespace zbddc {

using NodeId = uint32_t;
inline constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

enum class OpKind : uint8_t {
    Input,  // x[a]
    Zero,   // the semiring's 0
    One,    // the semiring's 1
    Const,  // constants[a], a value in the semiring's carrier
    Plus,   // a ⊕ b
    Times,  // a ⊗ b              (Minato et al. 2011 typeB when b is an input: f[b]x[c])
    MulAdd, // (a ⊗ b) ⊕ c        (Minato et al. 2011 typeA: f[b]x[c] + f[d])
};

// Leaves (Input, Zero, One, Const) have none: their `a` holds an index, not a node.
constexpr int operandCount(OpKind kind) {
    return kind == OpKind::MulAdd ? 3 : kind == OpKind::Plus || kind == OpKind::Times ? 2 : 0;
}
// Plus, Times and MulAdd: the nodes that compute, as opposed to leaves.
constexpr bool isOp(OpKind kind) { return operandCount(kind) > 0; }
const char *opKindName(OpKind kind);

// What an input x[i] means to the model that feeds it.
enum class InputKind : uint8_t {
    Indicator, // evidence indicator λ of variables[variable] = states[state]
    Parameter, // a parameter θ with its value
    Free,      // supplied by the caller
};

const char *inputKindName(InputKind kind);

struct InputInfo {
    InputKind kind = InputKind::Free;
    uint32_t variable = kNone; // Indicator: index into Circuit::variables
    uint32_t state = kNone;    // Indicator: index into that variable's states
    double value = 0.0;        // Parameter: its value
    std::string name;          // optional label (free inputs, parameters)
    bool operator==(const InputInfo &) const = default;
};

// A discrete model variable whose states indicator inputs refer to.
struct Variable {
    std::string name;
    std::vector<std::string> states;
    bool operator==(const Variable &) const = default;
};

struct Circuit {
    Semiring semiring = Semiring::SumProduct;

    // One entry per node, indexed by NodeId. Unused operands are kNone.
    std::vector<OpKind> kind;
    std::vector<uint32_t> a, b, c;

    std::vector<double> constants;  // values of Const nodes
    std::vector<InputInfo> inputs;  // meaning of x[i]
    std::vector<Variable> variables;
    std::vector<NodeId> outputs;
    std::vector<std::string> outputNames;

    size_t numNodes() const { return kind.size(); }
    size_t numInputs() const { return inputs.size(); }
    size_t numOutputs() const { return outputs.size(); }

    // Builders: each appends one node and returns its id.
    NodeId addInput(uint32_t inputIndex);
    NodeId addZero();
    NodeId addOne();
    NodeId addConst(double value);
    NodeId addPlus(NodeId x, NodeId y);
    NodeId addTimes(NodeId x, NodeId y);
    NodeId addMulAdd(NodeId x, NodeId y, NodeId z);
    uint32_t addInputInfo(InputInfo info);
    void addOutput(NodeId node, std::string name = {});

    void reserve(size_t nodes);

  private:
    NodeId append(OpKind k, uint32_t x, uint32_t y, uint32_t z);
};

// The operand nodes of one node in operand order, none for a leaf:
// `for (NodeId p : operandsOf(circuit, id))`.
struct NodeOperands {
    NodeId ids[3];
    int count;
    const NodeId *begin() const { return ids; }
    const NodeId *end() const { return ids + count; }
};
inline NodeOperands operandsOf(const Circuit &c, NodeId id) {
    return {{c.a[id], c.b[id], c.c[id]}, operandCount(c.kind[id])};
}

// Number of reads of each node by ops (a node read twice by one op counts twice).
std::vector<uint32_t> parentCounts(const Circuit &circuit);

// Checks the invariants every pass and backend relies on: operand ids smaller than the node's
// (acyclic), every id and index in range, input meanings consistent with the variable table, and
// constants valid in the circuit's semiring.
Status verify(const Circuit &circuit);

// Readable text, one line per node; stable, for tests and `zbddc -o x.txt`.
void dump(const Circuit &circuit, std::ostream &out);

} // namespace zbddc
