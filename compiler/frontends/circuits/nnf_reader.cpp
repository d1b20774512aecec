// Reader of d-DNNF files: c2d's `.nnf` (Darwiche 2004; also Dsharp's output) and d4's
// (Lagniez and Marquis 2017), which lists nodes and literal-labelled edges, root first.
#include "compiler/frontends/circuits/circuit_formats.h"
#include "compiler/frontends/circuits/record_lines.h"
#include "ir/parse_text_file.h"
#include "ir/text_lines.h"

#include <limits>
#include <unordered_map>

namespace zbddc {
namespace {

constexpr int64_t kMaxVar = kMaxLogicVariables;

using Tokens = std::vector<std::string_view>;

// c2d: `nnf V E N`, then V lines `L lit`, `A c i1..ic`, `O j c i1..ic`; children are earlier
// lines (0-based); the last line is the root.
Result<LogicCircuit> parseC2d(RecordLines &in, const Tokens &header) {
    if (header.size() != 4)
        return in.fail("expected 'nnf <nodes> <edges> <variables>'");
    auto nodes = in.unsignedAt(header[1], "node count", std::numeric_limits<uint32_t>::max() - 1);
    if (!nodes)
        return nodes.error();
    auto edges = in.unsignedAt(header[2], "edge count", std::numeric_limits<uint32_t>::max() - 1);
    if (!edges)
        return edges.error();
    auto vars = in.unsignedAt(header[3], "variable count", kMaxVar);
    if (!vars)
        return vars.error();
    if (*nodes == 0)
        return in.fail("the circuit has no nodes (a d-DNNF has at least its root)");
    const size_t headerLine = in.line();
    LogicCircuit c;
    c.numVars = static_cast<uint32_t>(*vars);
    Tokens t;
    std::vector<uint32_t> operands;
    uint64_t edgesSeen = 0;
    while (in.next(t)) {
        const uint32_t id = static_cast<uint32_t>(c.numNodes());
        c.atLine = static_cast<uint32_t>(in.line());
        if (id == *nodes)
            return in.fail("more node lines than the header's " + std::to_string(*nodes));
        if (t[0] == "L") {
            if (t.size() != 2)
                return in.fail("expected 'L <literal>'");
            auto lit = in.signedAt(t[1], "literal", c.numVars);
            if (!lit)
                return lit.error();
            if (*lit == 0)
                return in.fail("literal 0 (variables are 1.." + std::to_string(c.numVars) + ")");
            c.addLiteral(static_cast<int32_t>(*lit));
            continue;
        }
        const bool isOr = t[0] == "O";
        if (!isOr && t[0] != "A")
            return in.fail("unknown node '" + std::string(t[0]) + "' (expected L, A or O)");
        const size_t first = isOr ? 3 : 2; // O j c ...; A c ...
        if (t.size() < first)
            return in.fail(isOr ? "expected 'O <variable> <count> <children>'"
                                : "expected 'A <count> <children>'");
        if (isOr) {
            if (auto j = in.unsignedAt(t[1], "decision variable", c.numVars); !j)
                return j.error();
        }
        auto count = in.unsignedAt(t[first - 1], "child count", t.size());
        if (!count)
            return count.error();
        if (*count != t.size() - first)
            return in.fail("the node says " + std::to_string(*count) + " children and lists " +
                           std::to_string(t.size() - first));
        operands.clear();
        for (size_t k = first; k < t.size(); ++k) {
            auto child = in.unsignedAt(t[k], "child", std::numeric_limits<uint32_t>::max());
            if (!child)
                return child.error();
            if (*child >= id)
                return in.fail("child " + std::to_string(*child) +
                               " is not a node above (children come first; the root is last)");
            operands.push_back(static_cast<uint32_t>(*child));
        }
        edgesSeen += operands.size();
        c.addGate(isOr ? LogicKind::Or : LogicKind::And, operands);
    }
    if (c.numNodes() != *nodes)
        return errorAt(in.name(), headerLine,
                       "the header says " + std::to_string(*nodes) + " nodes and the file has " +
                           std::to_string(c.numNodes()));
    if (edgesSeen != *edges)
        return errorAt(in.name(), headerLine,
                       "the header says " + std::to_string(*edges) + " edges and the nodes have " +
                           std::to_string(edgesSeen));
    c.root = static_cast<uint32_t>(c.numNodes() - 1);
    return c;
}

// d4: `o|a|t|f <id> 0` declares a node (any order; node 1 is the root), `<p> <c> <lit>... 0`
// an edge from p to c whose literals are conjoined with c.
class D4Parser {
  public:
    explicit D4Parser(RecordLines &in) : in_(in) {}

    Result<LogicCircuit> parse(Tokens t) {
        do {
            if (Status s = record(t); !s)
                return s.error();
        } while (in_.next(t));
        auto root = ids_.find(1);
        if (root == ids_.end())
            return in_.fail("no node 1 (the root of a d4 circuit)");
        return build(root->second);
    }

  private:
    struct Edge {
        uint32_t child;
        std::vector<int32_t> literals;
        size_t line;
    };
    std::vector<uint32_t> declaredAt_; // per declared node, its line

    Status record(const Tokens &t) {
        const std::string_view head = t[0];
        if (head == "o" || head == "a" || head == "t" || head == "f") {
            if (t.size() != 3 || t[2] != "0")
                return in_.fail("expected '" + std::string(head) + " <id> 0'");
            auto id = in_.unsignedAt(t[1], "node id", std::numeric_limits<uint32_t>::max() - 1);
            if (!id)
                return id.error();
            if (*id == 0)
                return in_.fail("node id 0 (ids start at 1)");
            if (!ids_.emplace(static_cast<uint32_t>(*id), static_cast<uint32_t>(kinds_.size()))
                     .second)
                return in_.fail("duplicate node id " + std::to_string(*id));
            kinds_.push_back(head == "o"   ? LogicKind::Or
                             : head == "a" ? LogicKind::And
                             : head == "t" ? LogicKind::True
                                           : LogicKind::False);
            edges_.emplace_back();
            declaredAt_.push_back(static_cast<uint32_t>(in_.line()));
            return Ok{};
        }
        if (t.size() < 3 || t.back() != "0")
            return in_.fail(
                "expected a node 'o|a|t|f <id> 0' or an edge '<parent> <child> <literal>... 0'");
        uint32_t ends[2];
        for (int k = 0; k < 2; ++k) {
            auto id = in_.unsignedAt(t[k], k ? "child id" : "parent id",
                                     std::numeric_limits<uint32_t>::max());
            if (!id)
                return id.error();
            auto it = ids_.find(static_cast<uint32_t>(*id));
            if (it == ids_.end())
                return in_.fail("node " + std::to_string(*id) + " is not declared above");
            ends[k] = it->second;
        }
        if (kinds_[ends[0]] == LogicKind::True || kinds_[ends[0]] == LogicKind::False)
            return in_.fail("an edge leaves a constant node");
        Edge e{ends[1], {}, in_.line()};
        for (size_t k = 2; k + 1 < t.size(); ++k) {
            auto lit = in_.signedAt(t[k], "literal", kMaxVar);
            if (!lit)
                return lit.error();
            if (*lit == 0)
                return in_.fail("literal 0 before the end of the edge");
            e.literals.push_back(static_cast<int32_t>(*lit));
            numVars_ = std::max(numVars_, literalVariable(e.literals.back()));
        }
        edges_[ends[0]].push_back(std::move(e));
        return Ok{};
    }

    // Children before parents: a depth-first walk from the root, refusing a cycle.
    Result<LogicCircuit> build(uint32_t root) {
        LogicCircuit c;
        c.numVars = numVars_;
        constexpr uint32_t kUnmade = UINT32_MAX;
        std::vector<uint32_t> made(kinds_.size(), kUnmade);
        std::vector<uint8_t> open(kinds_.size(), 0);
        std::vector<std::pair<uint32_t, size_t>> stack{{root, 0}};
        open[root] = 1;
        std::vector<uint32_t> operands, conj;
        while (!stack.empty()) {
            auto &[node, next] = stack.back();
            if (next < edges_[node].size()) {
                const Edge &e = edges_[node][next++];
                if (open[e.child])
                    return errorAt(in_.name(), e.line, "this edge closes a cycle");
                if (made[e.child] == kUnmade) {
                    open[e.child] = 1;
                    stack.push_back({e.child, 0});
                }
                continue;
            }
            operands.clear();
            for (const Edge &e : edges_[node]) {
                c.atLine = static_cast<uint32_t>(e.line);
                conj.clear();
                for (int32_t lit : e.literals)
                    conj.push_back(c.addLiteral(lit));
                conj.push_back(made[e.child]);
                operands.push_back(conj.size() == 1 ? conj[0] : c.addGate(LogicKind::And, conj));
            }
            const LogicKind k = kinds_[node];
            c.atLine = declaredAt_[node];
            made[node] = k == LogicKind::True || k == LogicKind::False
                             ? c.addConstant(k == LogicKind::True)
                             : c.addGate(k, operands);
            open[node] = 0;
            stack.pop_back();
        }
        c.root = made[root];
        return c;
    }

    RecordLines &in_;
    std::unordered_map<uint32_t, uint32_t> ids_; // id in the file -> declaration index
    std::vector<LogicKind> kinds_;
    std::vector<std::vector<Edge>> edges_;
    uint32_t numVars_ = 0;
};

} // namespace

Result<LogicCircuit> parseNnf(std::string_view text, const std::string &name) {
    RecordLines in(text, name);
    Tokens t;
    if (!in.next(t))
        return errorAt(name, 1, "empty file, expected a d-DNNF ('nnf ...' or d4's node lines)");
    if (t[0] == "nnf")
        return parseC2d(in, t);
    return D4Parser(in).parse(t);
}

Result<LogicCircuit> readNnfFile(const std::string &path) {
    return parseTextFile(path, parseNnf);
}

} // namespace zbddc
