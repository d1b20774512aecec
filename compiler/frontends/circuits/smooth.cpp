#include "compiler/frontends/circuits/smooth.h"

#include <algorithm>
#include <string>

namespace zbddc {
namespace {

constexpr uint32_t kFalseNode = UINT32_MAX; // a node folded to FALSE: no node in the output

class Smoother {
  public:
    explicit Smoother(const LogicCircuit &in)
        : in_(in), made_(in.numNodes(), kFalseNode), vars_(in.numNodes()) {
        out_.numVars = in.numVars;
    }

    Result<LogicCircuit> run() {
        // Reads left per reached node: a node's variable set is freed after its last parent's
        // visit, so only the sets of the frontier are held at once.
        std::vector<uint32_t> readsLeft(in_.numNodes(), 0);
        readsLeft[in_.root] = 1;
        for (uint32_t i = in_.root + 1; i-- > 0;)
            if (readsLeft[i])
                for (uint32_t ch : in_.childrenOf(i))
                    ++readsLeft[ch];
        for (uint32_t i = 0; i < in_.root; ++i) {
            if (!readsLeft[i])
                continue;
            if (Status s = visit(i); !s)
                return s.error();
            for (uint32_t ch : in_.childrenOf(i))
                if (--readsLeft[ch] == 0)
                    std::vector<uint32_t>().swap(vars_[ch]);
        }
        if (Status s = visit(in_.root); !s)
            return s.error();
        std::vector<uint32_t> all(in_.numVars);
        for (uint32_t v = 0; v < in_.numVars; ++v)
            all[v] = v + 1;
        out_.root = made_[in_.root] == kFalseNode ? out_.addConstant(false)
                                                  : padded(made_[in_.root], vars_[in_.root], all);
        return std::move(out_);
    }

  private:
    Status visit(uint32_t i) {
        switch (in_.kind[i]) {
        case LogicKind::False:
            return Ok{};
        case LogicKind::True:
            made_[i] = trueNode();
            return Ok{};
        case LogicKind::Literal:
            if (in_.literal[i] == 0 || literalVariable(in_.literal[i]) > in_.numVars)
                return errorAt("", in_.line.empty() ? 0 : in_.line[i],
                               "literal " + std::to_string(in_.literal[i]) +
                                   " outside variables 1.." + std::to_string(in_.numVars));
            made_[i] = literal(in_.literal[i]);
            vars_[i] = {literalVariable(in_.literal[i])};
            return Ok{};
        case LogicKind::And:
            return conjoin(i);
        case LogicKind::Or:
            disjoin(i);
            return Ok{};
        }
        return Ok{};
    }

    Status conjoin(uint32_t i) {
        std::vector<uint32_t> operands, vars;
        size_t mentioned = 0;
        for (uint32_t ch : in_.childrenOf(i)) {
            if (made_[ch] == kFalseNode)
                return Ok{}; // FALSE
            if (out_.kind[made_[ch]] == LogicKind::True)
                continue;
            operands.push_back(made_[ch]);
            mentioned += vars_[ch].size();
            std::vector<uint32_t> merged;
            std::set_union(vars.begin(), vars.end(), vars_[ch].begin(), vars_[ch].end(),
                           std::back_inserter(merged));
            vars.swap(merged);
        }
        if (vars.size() != mentioned)
            return errorAt(
                "", in_.line.empty() ? 0 : in_.line[i],
                "an AND whose children share a variable (not decomposable, so not a d-DNNF)");
        made_[i] = operands.empty()       ? trueNode()
                   : operands.size() == 1 ? operands[0]
                                          : out_.addGate(LogicKind::And, operands);
        vars_[i] = std::move(vars);
        return Ok{};
    }

    void disjoin(uint32_t i) {
        std::vector<uint32_t> vars;
        for (uint32_t ch : in_.childrenOf(i))
            if (made_[ch] != kFalseNode) {
                std::vector<uint32_t> merged;
                std::set_union(vars.begin(), vars.end(), vars_[ch].begin(), vars_[ch].end(),
                               std::back_inserter(merged));
                vars.swap(merged);
            }
        std::vector<uint32_t> operands;
        for (uint32_t ch : in_.childrenOf(i))
            if (made_[ch] != kFalseNode)
                operands.push_back(padded(made_[ch], vars_[ch], vars));
        if (operands.empty())
            return; // FALSE
        made_[i] = operands.size() == 1 ? operands[0] : out_.addGate(LogicKind::Or, operands);
        vars_[i] = std::move(vars);
    }

    // `node` (over `has`) conjoined with the gadget of every variable of `want` it lacks.
    uint32_t padded(uint32_t node, const std::vector<uint32_t> &has,
                    const std::vector<uint32_t> &want) {
        if (has.size() == want.size())
            return node;
        std::vector<uint32_t> operands{node};
        if (out_.kind[node] == LogicKind::True)
            operands.clear();
        size_t k = 0;
        for (uint32_t v : want) {
            while (k < has.size() && has[k] < v)
                ++k;
            if (k == has.size() || has[k] != v)
                operands.push_back(gadget(v));
        }
        return operands.size() == 1 ? operands[0] : out_.addGate(LogicKind::And, operands);
    }

    uint32_t trueNode() {
        if (true_ == kFalseNode)
            true_ = out_.addConstant(true);
        return true_;
    }
    uint32_t literal(int32_t lit) {
        const size_t slot = 2 * (literalVariable(lit) - 1) + (lit > 0);
        if (literals_.size() <= slot)
            literals_.resize(slot + 1, kFalseNode);
        if (literals_[slot] == kFalseNode)
            literals_[slot] = out_.addLiteral(lit);
        return literals_[slot];
    }
    uint32_t gadget(uint32_t v) {
        if (gadgets_.size() < v)
            gadgets_.resize(v, kFalseNode);
        if (gadgets_[v - 1] == kFalseNode) {
            const uint32_t both[2] = {literal(static_cast<int32_t>(v)),
                                      literal(-static_cast<int32_t>(v))};
            gadgets_[v - 1] = out_.addGate(LogicKind::Or, both);
        }
        return gadgets_[v - 1];
    }

    const LogicCircuit &in_;
    LogicCircuit out_;
    std::vector<uint32_t> made_;              // input node -> output node, or kFalseNode
    std::vector<std::vector<uint32_t>> vars_; // input node -> its variables, ascending
    std::vector<uint32_t> literals_, gadgets_;
    uint32_t true_ = kFalseNode;
};

} // namespace

Result<LogicCircuit> smoothCircuit(const LogicCircuit &circuit) {
    if (circuit.numNodes() == 0)
        return error("the circuit has no nodes");
    return Smoother(circuit).run();
}

} // namespace zbddc
