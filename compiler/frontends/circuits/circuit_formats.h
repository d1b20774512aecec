// Readers of the knowledge compilers' circuit files (docs/formats/circuits.md): d-DNNF in c2d's
// `.nnf` format (also written by Dsharp) and d4's, and SDDs as the SDD package writes them
// (`.sdd` with its `.vtree`). Every malformed input ends in one `file:line: what is wrong`.
#pragma once

#include "compiler/frontends/circuits/logic_circuit.h"
#include "ir/result.h"

#include <string>
#include <string_view>
#include <unordered_map>

namespace zbddc {

// c2d's `nnf v e n` header and L/A/O lines, or d4's `o|a|t|f id 0` nodes and `p c lit... 0`
// edges, told apart by the first line that is not a comment.
Result<LogicCircuit> parseNnf(std::string_view text, const std::string &name);
Result<LogicCircuit> readNnfFile(const std::string &path);

// A vtree: which variables each vtree node covers (docs/formats/circuits.md).
struct Vtree {
    std::vector<uint32_t> left, right; // per vtree node: children, kNoVtree for a leaf
    std::vector<uint32_t> variable;    // per vtree node: a leaf's variable (1-based), 0 otherwise
    uint32_t root = 0;
    uint32_t numVars = 0;                             // the largest variable of a leaf
    std::unordered_map<uint64_t, uint32_t> idToIndex; // vtree node id in the file -> index
};
inline constexpr uint32_t kNoVtree = UINT32_MAX;

Result<Vtree> parseVtree(std::string_view text, const std::string &name);
// An SDD over `vtree`: each literal node's vtree node is a leaf of its variable, each decision
// node's an internal node, and each decision node has at least one element.
Result<LogicCircuit> parseSdd(std::string_view text, const std::string &name, const Vtree &vtree);
// `path` (.sdd) with its vtree: `vtreePath`, or where that is "" the .vtree of the same name
// beside it.
Result<LogicCircuit> readSddFile(const std::string &path, const std::string &vtreePath = {});

// The d-DNNF as c2d writes it (for tests, and to hand an SDD to a d-DNNF tool).
std::string writeNnf(const LogicCircuit &circuit);

} // namespace zbddc
