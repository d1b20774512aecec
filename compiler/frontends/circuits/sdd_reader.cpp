// Reader of SDDs as the SDD package writes them (Darwiche 2011; `sdd_save`, PySDD's `save`):
// a `.vtree` and an `.sdd` whose decision nodes are ORs of (prime AND sub) elements.
#include "compiler/frontends/circuits/circuit_formats.h"
#include "compiler/frontends/circuits/record_lines.h"
#include "ir/text_lines.h"

#include <limits>
#include <unordered_map>

namespace zbddc {
namespace {

constexpr uint64_t kMaxId = std::numeric_limits<uint32_t>::max() - 1;
using Tokens = std::vector<std::string_view>;

// Both files open with "<keyword> <count>" and then hold that many node records: the count,
// checked against the records as they come.
class NodeCount {
  public:
    static Result<NodeCount> read(RecordLines &in, std::string_view keyword, std::string noun) {
        Tokens t;
        if (!in.next(t))
            return errorAt(in.name(), 1,
                           "empty file, expected '" + std::string(keyword) + " <count>'");
        if (t.size() != 2 || t[0] != keyword)
            return in.fail("expected '" + std::string(keyword) + " <count>' as the first line");
        auto count = in.unsignedAt(t[1], std::string(keyword) + " node count", kMaxId);
        if (!count)
            return count.error();
        return NodeCount(std::move(noun), *count, in.line());
    }

    // One more node record, at `in`'s line: an error past the header's count.
    Status add(const RecordLines &in) {
        if (seen_++ == declared_)
            return in.fail("more " + noun_ + " nodes than the header's " +
                           std::to_string(declared_));
        return Ok{};
    }

    // After the last record: as many nodes as the header says, and at least one.
    Status finish(const RecordLines &in) const {
        if (seen_ != declared_)
            return errorAt(in.name(), headerLine_,
                           "the header says " + std::to_string(declared_) + " " + noun_ +
                               " nodes and the file has " + std::to_string(seen_));
        if (seen_ == 0)
            return errorAt(in.name(), headerLine_, "the " + noun_ + " has no nodes");
        return Ok{};
    }

    size_t headerLine() const { return headerLine_; }

  private:
    NodeCount(std::string noun, uint64_t declared, size_t headerLine)
        : noun_(std::move(noun)), declared_(declared), headerLine_(headerLine) {}

    std::string noun_;
    uint64_t declared_, seen_ = 0;
    size_t headerLine_;
};

} // namespace

// `vtree N`, then `L id var` and `I id left right`, children first; the last line is the root.
Result<Vtree> parseVtree(std::string_view text, const std::string &name) {
    RecordLines in(text, name);
    auto count = NodeCount::read(in, "vtree", "vtree");
    if (!count)
        return count.error();
    Vtree v;
    std::unordered_map<uint64_t, uint32_t> index; // id in the file -> dense index
    std::vector<uint8_t> hasParent;
    std::unordered_map<uint32_t, uint32_t> leafOf; // variable -> vtree node
    Tokens t;
    while (in.next(t)) {
        const bool leaf = t[0] == "L";
        if (!leaf && t[0] != "I")
            return in.fail("unknown vtree node '" + std::string(t[0]) + "' (expected L or I)");
        if (t.size() != (leaf ? 3u : 4u))
            return in.fail(leaf ? "expected 'L <id> <variable>'"
                                : "expected 'I <id> <left> <right>'");
        if (auto st = count->add(in); !st)
            return st.error();
        auto id = in.unsignedAt(t[1], "vtree node id", kMaxId);
        if (!id)
            return id.error();
        const uint32_t self = static_cast<uint32_t>(v.variable.size());
        if (!index.emplace(*id, self).second)
            return in.fail("duplicate vtree node id " + std::to_string(*id));
        uint32_t kids[2] = {kNoVtree, kNoVtree};
        uint32_t var = 0;
        if (leaf) {
            auto x = in.unsignedAt(t[2], "variable", kMaxLogicVariables);
            if (!x)
                return x.error();
            if (*x == 0)
                return in.fail("variable 0 (variables are numbered from 1)");
            var = static_cast<uint32_t>(*x);
            if (!leafOf.emplace(var, self).second)
                return in.fail("variable " + std::to_string(var) + " has two leaves");
            v.numVars = std::max(v.numVars, var);
        } else {
            for (int k = 0; k < 2; ++k) {
                auto child = in.unsignedAt(t[2 + k], "vtree child", kMaxId);
                if (!child)
                    return child.error();
                auto it = index.find(*child);
                if (it == index.end() || it->second == self)
                    return in.fail("vtree child " + std::to_string(*child) +
                                   " is not a node above");
                if (hasParent[it->second])
                    return in.fail("vtree node " + std::to_string(*child) + " has two parents");
                hasParent[it->second] = 1;
                kids[k] = it->second;
            }
            if (kids[0] == kids[1])
                return in.fail("an internal vtree node needs two different children");
        }
        v.left.push_back(kids[0]);
        v.right.push_back(kids[1]);
        v.variable.push_back(var);
        hasParent.push_back(0);
    }
    if (auto st = count->finish(in); !st)
        return st.error();
    v.root = static_cast<uint32_t>(v.variable.size() - 1);
    for (uint32_t i = 0; i < v.root; ++i)
        if (!hasParent[i])
            return errorAt(name, count->headerLine(),
                           "the vtree is not one tree (a node other than the last has no parent)");
    v.idToIndex = std::move(index); // the SDD names vtree nodes by their ids in the file
    return v;
}

// `sdd N`, then `F id`, `T id`, `L id vtree lit`, `D id vtree k p1 s1 ... pk sk`, children
// first; the last line is the root.
Result<LogicCircuit> parseSdd(std::string_view text, const std::string &name, const Vtree &vtree) {
    RecordLines in(text, name);
    auto count = NodeCount::read(in, "sdd", "SDD");
    if (!count)
        return count.error();
    LogicCircuit c;
    c.numVars = vtree.numVars;
    std::unordered_map<uint64_t, uint32_t> node; // id in the file -> circuit node
    auto vtreeNode = [&](std::string_view token) -> Result<uint32_t> {
        auto id = in.unsignedAt(token, "vtree node id", kMaxId);
        if (!id)
            return id.error();
        auto it = vtree.idToIndex.find(*id);
        if (it == vtree.idToIndex.end())
            return in.fail("vtree node " + std::to_string(*id) + " is not in the vtree");
        return it->second;
    };
    auto child = [&](std::string_view token) -> Result<uint32_t> {
        auto id = in.unsignedAt(token, "element node id", kMaxId);
        if (!id)
            return id.error();
        auto it = node.find(*id);
        if (it == node.end())
            return in.fail("node " + std::to_string(*id) +
                           " is not defined above (children come first)");
        return it->second;
    };
    Tokens t;
    std::vector<uint32_t> elements;
    while (in.next(t)) {
        if (auto st = count->add(in); !st)
            return st.error();
        c.atLine = static_cast<uint32_t>(in.line());
        const std::string_view k = t[0];
        const size_t minSize = k == "F" || k == "T" ? 2 : k == "L" ? 4 : k == "D" ? 4 : 0;
        if (minSize == 0)
            return in.fail("unknown SDD node '" + std::string(k) + "' (expected F, T, L or D)");
        if (t.size() < minSize || (k != "D" && t.size() != minSize))
            return in.fail(k == "F" || k == "T" ? "expected '" + std::string(k) + " <id>'"
                           : k == "L"
                               ? std::string("expected 'L <id> <vtree> <literal>'")
                               : std::string("expected 'D <id> <vtree> <count> <prime> <sub>...'"));
        auto id = in.unsignedAt(t[1], "SDD node id", kMaxId);
        if (!id)
            return id.error();
        if (node.count(*id))
            return in.fail("duplicate SDD node id " + std::to_string(*id));
        uint32_t made = 0;
        if (k == "F" || k == "T") {
            made = c.addConstant(k == "T");
        } else if (k == "L") {
            auto v = vtreeNode(t[2]);
            if (!v)
                return v.error();
            auto lit = in.signedAt(t[3], "literal", kMaxLogicVariables);
            if (!lit)
                return lit.error();
            if (*lit == 0 || literalVariable(static_cast<int32_t>(*lit)) != vtree.variable[*v])
                return in.fail("literal " + std::string(t[3]) +
                               " is not the variable of vtree node " + std::string(t[2]) +
                               (vtree.variable[*v] ? " (a leaf of variable " +
                                                         std::to_string(vtree.variable[*v]) + ")"
                                                   : " (an internal node)"));
            made = c.addLiteral(static_cast<int32_t>(*lit));
        } else {
            auto v = vtreeNode(t[2]);
            if (!v)
                return v.error();
            if (vtree.variable[*v] != 0)
                return in.fail("decision node on vtree leaf " + std::string(t[2]) +
                               " (decisions sit on internal nodes)");
            auto n = in.unsignedAt(t[3], "element count", t.size());
            if (!n)
                return n.error();
            if (*n == 0 || t.size() != 4 + 2 * *n)
                return in.fail("the node says " + std::to_string(*n) + " elements and lists " +
                               std::to_string(t.size() - 4) +
                               " ids (a prime and a sub each; at least one element)");
            elements.clear();
            for (size_t e = 0; e < *n; ++e) {
                auto prime = child(t[4 + 2 * e]);
                if (!prime)
                    return prime.error();
                auto sub = child(t[5 + 2 * e]);
                if (!sub)
                    return sub.error();
                const uint32_t pair[2] = {*prime, *sub};
                elements.push_back(c.addGate(LogicKind::And, pair));
            }
            made = c.addGate(LogicKind::Or, elements);
        }
        node.emplace(*id, made);
    }
    if (auto st = count->finish(in); !st)
        return st.error();
    c.root = static_cast<uint32_t>(c.numNodes() - 1);
    return c;
}

Result<LogicCircuit> readSddFile(const std::string &path, const std::string &givenVtree) {
    const std::string stem = path.size() > 4 && path.compare(path.size() - 4, 4, ".sdd") == 0
                                 ? path.substr(0, path.size() - 4)
                                 : path;
    const std::string vtreePath = givenVtree.empty() ? stem + ".vtree" : givenVtree;
    auto vtreeText = readTextFile(vtreePath);
    if (!vtreeText)
        return errorAt(path, 0,
                       "an .sdd is read with its vtree, and '" + vtreePath + "' cannot be read");
    auto vtree = parseVtree(*vtreeText, vtreePath);
    if (!vtree)
        return vtree.error();
    auto text = readTextFile(path);
    if (!text)
        return text.error();
    return parseSdd(*text, path, *vtree);
}

} // namespace zbddc
