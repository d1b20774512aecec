#include "compiler/junction_tree/lower_junction_tree.h"

#include <algorithm>
#include <string>

namespace zbddc {

namespace {

bool holds(const std::vector<uint32_t> &sorted, uint32_t v) {
    return std::binary_search(sorted.begin(), sorted.end(), v);
}

class Lowering {
  public:
    Lowering(const BayesNet &net, const JunctionTree &tree, const JunctionTreeLowering &options)
        : net_(net), tree_(tree), opt_(options) {}

    JunctionTreeProgram run() {
        const uint32_t n = tree_.numCliques();
        out_.batchVariable = tree_.numVariables();
        out_.batch = opt_.batch;
        TensorProgram &p = out_.program;
        p.semiring = opt_.maxProduct ? Semiring::MaxProduct : Semiring::SumProduct;
        p.domainSizes = tree_.domainSizes;
        p.domainSizes.push_back(opt_.batch);

        children_.resize(n);
        for (uint32_t c = 1; c < n; ++c)
            children_[tree_.parent[c]].push_back(c);
        addPotentials();
        addEvidence();
        up_.assign(n, kNoTable);
        upScale_.assign(n, kNoTable);
        down_.assign(n, kNoTable);
        downScale_.assign(n, kNoTable);

        for (uint32_t c : tree_.collectOrder) {
            if (c == 0)
                continue;
            up_[c] = reduce(collectInputs(c), separator(c));
            upScale_[c] = inverseMax(up_[c]);
            out_.collectScales.push_back(upScale_[c]);
        }
        if (n > 0)
            out_.normaliser = reduce(collectInputs(0), {});
        if (opt_.marginals) {
            belief_.assign(n, kNoTable);
            for (uint32_t c = 1; c < n; ++c) { // parents first: parent[c] < c
                const uint32_t p = tree_.parent[c];
                if (useBelief(p)) {
                    // Hugin's division instead of one product per child: the parent's belief
                    // once, then per child its marginal over the separator times 1 / the
                    // child's own message (a 0 message gives 0: the belief holds that 0 too).
                    if (belief_[p] == kNoTable)
                        belief_[p] = reduce(allInputs(p), cliqueVars(p));
                    down_[c] = reduce({belief_[p], reciprocal(up_[c])}, separator(c));
                } else {
                    std::vector<uint32_t> in = allInputs(p);
                    std::erase_if(in, [&](uint32_t t) { return t == up_[c] || t == upScale_[c]; });
                    down_[c] = reduce(in, separator(c));
                }
                downScale_[c] = inverseMax(down_[c]);
            }
            addMarginals();
            p.fetch = out_.marginalTable;
            p.fetch.push_back(out_.normaliser);
            p.fetch.insert(p.fetch.end(), out_.collectScales.begin(), out_.collectScales.end());
        } else if (!opt_.maxProduct) { // PR reads Z and the scales; MPE's traceback reads all
            p.fetch = out_.collectScales;
            p.fetch.push_back(out_.normaliser);
        }
        std::erase_if(p.fetch, [&](uint32_t t) { return p.tables[t].input; });
        std::sort(p.fetch.begin(), p.fetch.end());
        p.fetch.erase(std::unique(p.fetch.begin(), p.fetch.end()), p.fetch.end());
        computeLevels(p);
        return std::move(out_);
    }

  private:
    // A table over `vars` (ascending, without the case) and, with `batched`, the case.
    uint32_t addTable(const std::vector<uint32_t> &vars, bool batched) {
        Table t;
        if (batched && !opt_.batchFastest)
            t.scope.push_back(out_.batchVariable);
        t.scope.insert(t.scope.end(), vars.begin(), vars.end());
        if (batched && opt_.batchFastest)
            t.scope.push_back(out_.batchVariable);
        for (uint32_t v : t.scope)
            t.domains.push_back(out_.program.domainSizes[v]);
        out_.program.tables.push_back(std::move(t));
        return static_cast<uint32_t>(out_.program.tables.size() - 1);
    }

    bool batched(uint32_t table) const {
        const auto &s = out_.program.tables[table].scope;
        return std::find(s.begin(), s.end(), out_.batchVariable) != s.end();
    }

    std::vector<uint32_t> scopeWithoutBatch(uint32_t table) const {
        std::vector<uint32_t> s = out_.program.tables[table].scope;
        std::erase(s, out_.batchVariable);
        std::sort(s.begin(), s.end());
        return s;
    }

    std::vector<uint32_t> separator(uint32_t c) const {
        auto s = tree_.separator(c);
        return {s.begin(), s.end()};
    }

    // ⊕ over everything but `keep` (and the case) of ⊗ `inputs`: an EliminateBucket, a Join when
    // nothing is eliminated, or the input itself when there is one and nothing to do.
    uint32_t reduce(const std::vector<uint32_t> &inputs, const std::vector<uint32_t> &keep) {
        std::vector<uint32_t> all;
        bool anyBatched = false;
        for (uint32_t t : inputs) {
            const std::vector<uint32_t> s = scopeWithoutBatch(t);
            all.insert(all.end(), s.begin(), s.end());
            anyBatched |= batched(t);
        }
        std::sort(all.begin(), all.end());
        all.erase(std::unique(all.begin(), all.end()), all.end());
        std::vector<uint32_t> kept, eliminated;
        for (uint32_t v : all)
            (holds(keep, v) ? kept : eliminated).push_back(v);
        if (eliminated.empty() && inputs.size() == 1)
            return inputs[0];
        const uint32_t t = addTable(kept, anyBatched);
        out_.program.ops.push_back(
            {eliminated.empty() ? TensorOpKind::Join : TensorOpKind::EliminateBucket,
             inputs,
             t,
             eliminated,
             {}});
        return t;
    }

    // Whether clique p distributes through its materialised belief (one product, then a division
    // per child) rather than one product per child without that child's message: O(children)
    // reads of the clique instead of O(children²), as on pathfinder's hub. The belief is written
    // and read back whole, so it must win by half (fused products stay in cache).
    bool useBelief(uint32_t p) const {
        const size_t k = children_[p].size();
        if (k == 0 || opt_.belief == JunctionTreeLowering::Belief::Never)
            return false;
        if (opt_.belief == JunctionTreeLowering::Belief::Always)
            return true;
        const double clique = tree_.entries(tree_.clique(p));
        const double inputs = static_cast<double>(allInputs(p).size());
        const double perChild = clique * (inputs - 2), belief = clique * (inputs + 2 * k);
        return 2 * belief < perChild * k;
    }

    // 1 / t entry by entry (1 where t is 0).
    uint32_t reciprocal(uint32_t t) {
        const uint32_t out = addTable(scopeWithoutBatch(t), batched(t));
        out_.program.ops.push_back({TensorOpKind::InverseMax, {t}, out, {}, {}});
        return out;
    }

    std::vector<uint32_t> cliqueVars(uint32_t c) const {
        auto s = tree_.clique(c);
        return {s.begin(), s.end()};
    }

    // 1 / max over each case of `message`: its readers multiply it in.
    uint32_t inverseMax(uint32_t message) {
        const uint32_t t = addTable({}, batched(message));
        out_.program.ops.push_back(
            {TensorOpKind::InverseMax, {message}, t, scopeWithoutBatch(message), {}});
        return t;
    }

    // Each CPT as an input table; a clique holding several multiplies them once (a Join, no case).
    void addPotentials() {
        const uint32_t n = tree_.numCliques();
        std::vector<std::vector<uint32_t>> cpts(n);
        for (uint32_t v = 0; v < net_.variables.size(); ++v) {
            const BnVariable &x = net_.variables[v];
            Table t;
            t.scope = x.parents;
            t.scope.push_back(v);
            for (uint32_t u : t.scope)
                t.domains.push_back(tree_.domainSizes[u]);
            t.input = true;
            t.values = x.cpt;
            out_.program.tables.push_back(std::move(t));
            cpts[tree_.factorClique[v]].push_back(
                static_cast<uint32_t>(out_.program.tables.size() - 1));
        }
        potential_.resize(n);
        for (uint32_t c = 0; c < n; ++c)
            if (cpts[c].size() > 1)
                potential_[c] = {reduce(cpts[c], cliqueVars(c))};
            else
                potential_[c] = cpts[c];
    }

    void addEvidence() {
        out_.evidenceTable.assign(tree_.numVariables(), kNoTable);
        for (uint32_t v : opt_.observed) {
            if (out_.evidenceTable[v] != kNoTable)
                continue;
            const uint32_t t = addTable({v}, true);
            Table &tab = out_.program.tables[t];
            tab.input = true;
            tab.values.assign(tab.entries(), 1.0);
            out_.evidenceTable[v] = t;
            potential_[tree_.variableClique[v]].push_back(t);
        }
    }

    std::vector<uint32_t> collectInputs(uint32_t c) const {
        std::vector<uint32_t> in = potential_[c];
        for (uint32_t k : children_[c]) {
            in.push_back(up_[k]);
            in.push_back(upScale_[k]);
        }
        return in;
    }

    std::vector<uint32_t> allInputs(uint32_t c) const {
        std::vector<uint32_t> in = collectInputs(c);
        if (c != 0) {
            in.push_back(down_[c]);
            in.push_back(downScale_[c]);
        }
        return in;
    }

    // Each variable's marginal from the smallest place that holds it: the two messages of a
    // separator, or (where no separator holds it) every input of its clique.
    void addMarginals() {
        const uint32_t nv = tree_.numVariables();
        std::vector<double> bestCost(nv, 0);
        std::vector<std::vector<uint32_t>> bestInputs(nv);
        for (uint32_t v = 0; v < nv; ++v) {
            const uint32_t c = tree_.variableClique[v];
            bestInputs[v] =
                belief_[c] != kNoTable ? std::vector<uint32_t>{belief_[c]} : allInputs(c);
            bestCost[v] = entriesOf(bestInputs[v]);
        }
        for (uint32_t c = 1; c < tree_.numCliques(); ++c) {
            const std::vector<uint32_t> in{up_[c], upScale_[c], down_[c], downScale_[c]};
            const double cost = entriesOf(in);
            std::vector<uint32_t> vars = scopeWithoutBatch(up_[c]);
            for (uint32_t v : scopeWithoutBatch(down_[c]))
                if (!holds(scopeWithoutBatch(up_[c]), v))
                    vars.push_back(v);
            for (uint32_t v : vars)
                if (cost < bestCost[v]) {
                    bestCost[v] = cost;
                    bestInputs[v] = in;
                }
        }
        out_.marginalTable.resize(nv);
        for (uint32_t v = 0; v < nv; ++v)
            out_.marginalTable[v] = reduce(bestInputs[v], {v});
    }

    double entriesOf(const std::vector<uint32_t> &inputs) const {
        std::vector<uint32_t> all;
        for (uint32_t t : inputs) {
            const std::vector<uint32_t> s = scopeWithoutBatch(t);
            all.insert(all.end(), s.begin(), s.end());
        }
        std::sort(all.begin(), all.end());
        all.erase(std::unique(all.begin(), all.end()), all.end());
        return tree_.entries(all);
    }

    const BayesNet &net_;
    const JunctionTree &tree_;
    const JunctionTreeLowering &opt_;
    JunctionTreeProgram out_;
    std::vector<std::vector<uint32_t>> children_, potential_;
    std::vector<uint32_t> up_, upScale_, down_, downScale_;
    std::vector<uint32_t> belief_; // per clique with many children: its materialised belief
};

} // namespace

uint64_t JunctionTreeProgram::rowOf(uint32_t table, uint32_t b,
                                    const std::vector<uint32_t> &assignment) const {
    const Table &t = program.tables[table];
    uint64_t row = 0;
    for (size_t i = 0; i < t.scope.size(); ++i)
        row = row * t.domains[i] + (t.scope[i] == batchVariable ? b : assignment[t.scope[i]]);
    return row;
}

void JunctionTreeProgram::setEvidence(uint32_t b, const std::vector<uint32_t> &states) {
    std::vector<uint32_t> assignment(states.size(), 0);
    for (uint32_t v = 0; v < evidenceTable.size(); ++v) {
        if (evidenceTable[v] == kNoTable)
            continue;
        Table &t = program.tables[evidenceTable[v]];
        for (uint32_t x = 0; x < program.domainSizes[v]; ++x) {
            assignment[v] = x;
            t.values[rowOf(evidenceTable[v], b, assignment)] =
                states[v] == UINT32_MAX || states[v] == x ? 1.0 : 0.0;
        }
    }
}

Result<JunctionTreeProgram> lowerJunctionTree(const BayesNet &net, const JunctionTree &tree,
                                              const JunctionTreeLowering &options) {
    if (tree.numVariables() != net.variables.size() ||
        tree.factorClique.size() != net.variables.size())
        return error("internal error: the junction tree is not this network's");
    if (options.batch == 0)
        return error("a batch needs at least one case");
    for (uint32_t v : options.observed)
        if (v >= net.variables.size())
            return error("observed variable " + std::to_string(v) + " is not in the network");
    JunctionTreeProgram lowered = Lowering(net, tree, options).run();
    if (Status s = lowered.program.verify(); !s)
        return error("internal error: junction-tree program: " + s.error().message);
    return lowered;
}

} // namespace zbddc
