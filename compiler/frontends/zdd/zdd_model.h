// A ZBDD-compressed multi-linear function as the .zdd format holds it (docs/formats/zdd.md):
// nodes over ZBDD variables, roots, and what each ZBDD variable means to the model. ZBDD variable
// v is circuit input x[v].
#pragma once

#include "ir/circuit.h"

#include <cstdint>
#include <string>
#include <vector>

namespace zbddc {

inline constexpr uint32_t kZddEmpty = 0; // the 0 terminal: the empty family
inline constexpr uint32_t kZddBase = 1;  // the 1 terminal: the family {∅}

struct ZddNode {
    uint32_t var; // ZBDD variable; children's variables are strictly greater
    uint32_t lo;  // node id, or a terminal
    uint32_t hi;  // node id, or kZddBase; never kZddEmpty (zero suppression)
    bool operator==(const ZddNode &) const = default;
};

struct ZddModel {
    std::vector<Variable> variables; // the model's discrete variables (may be empty)
    std::vector<InputInfo> vars;     // meaning of ZBDD variable v, i.e. of input x[v]
    std::vector<ZddNode> nodes;      // node id i >= 2 is nodes[i - 2]; children have smaller ids
    std::vector<uint32_t> roots;     // node ids or terminals
    std::vector<std::string> rootNames;

    static uint32_t idOf(size_t index) { return static_cast<uint32_t>(index + 2); }
    const ZddNode &node(uint32_t id) const { return nodes[id - 2]; }
    bool operator==(const ZddModel &) const = default;
};

} // namespace zbddc
