// A Boolean circuit in negation normal form, as the knowledge compilers write them: d-DNNF
// (.nnf, c2d's and d4's formats) and SDDs (.sdd with its .vtree; an SDD is a d-DNNF, Darwiche
// 2011). Flat arrays, children before parents, as the Circuit IR keeps its nodes. Variables are
// numbered 1..numVars and literals are signed as in DIMACS (-3 is "not x3").
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace zbddc {

// The most variables a file may name: the circuit gets four inputs per variable and the root a
// smoothing gadget for each, so a header or literal naming 2^31 would allocate before any check.
inline constexpr uint32_t kMaxLogicVariables = 1u << 24;

enum class LogicKind : uint8_t { False, True, Literal, And, Or };

struct LogicCircuit {
    uint32_t numVars = 0; // variables 1..numVars, mentioned or not (a weighted count covers all)
    std::vector<LogicKind> kind;
    std::vector<int32_t> literal; // Literal nodes: a non-zero DIMACS literal; 0 otherwise
    std::vector<uint32_t> childBegin{
        0};                         // node i's children: children[childBegin[i], childBegin[i+1])
    std::vector<uint32_t> children; // node ids, each smaller than its parent's
    uint32_t root = 0;
    // Per node, the line of the file that made it (0 where none), so that a refusal after reading
    // (an AND that is not decomposable) still names file:line; readers set `atLine` as they go.
    std::vector<uint32_t> line;
    uint32_t atLine = 0;

    size_t numNodes() const { return kind.size(); }
    std::span<const uint32_t> childrenOf(uint32_t node) const {
        return {children.data() + childBegin[node], childBegin[node + 1] - childBegin[node]};
    }

    uint32_t addConstant(bool value) {
        return add(value ? LogicKind::True : LogicKind::False, 0, {});
    }
    uint32_t addLiteral(int32_t lit) { return add(LogicKind::Literal, lit, {}); }
    uint32_t addGate(LogicKind k, std::span<const uint32_t> operands) {
        return add(k, 0, operands);
    }

  private:
    uint32_t add(LogicKind k, int32_t lit, std::span<const uint32_t> operands) {
        kind.push_back(k);
        literal.push_back(lit);
        line.push_back(atLine);
        children.insert(children.end(), operands.begin(), operands.end());
        childBegin.push_back(static_cast<uint32_t>(children.size()));
        return static_cast<uint32_t>(kind.size() - 1);
    }
};

inline uint32_t literalVariable(int32_t lit) {
    return static_cast<uint32_t>(lit < 0 ? -lit : lit);
}

} // namespace zbddc
