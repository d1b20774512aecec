#include "compiler/loopy/lower_loopy.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>
#include <string>

namespace zbddc {

namespace {

class Lowering {
  public:
    Lowering(const FactorGraph &g, const LoopyLowering &o) : g_(g), o_(o) {}

    LoopyProgram run() {
        TensorProgram &p = out_.program;
        out_.batchVariable = static_cast<uint32_t>(g_.numVariables());
        out_.batch = o_.batch;
        p.semiring = o_.maxProduct ? Semiring::MaxProduct : Semiring::SumProduct;
        p.domainSizes = g_.domainSizes;
        p.domainSizes.push_back(o_.batch);
        addFactors();
        addEvidence();
        addMessages();
        out_.weight = addTable({}, true);
        Table &w = p.tables[out_.weight];
        w.input = true;
        w.values.assign(w.entries(), 0.0);

        const size_t edges = g_.numEdges();
        into_.assign(edges, {});
        for (uint32_t e = 0; e < edges; ++e)
            into_[e] = messageIntoFactor(e);
        std::vector<uint32_t> raw(edges);
        for (uint32_t e = 0; e < edges; ++e)
            raw[e] = factorMessage(e);
        out_.messageOut.resize(edges);
        for (uint32_t e = 0; e < edges; ++e) {
            const uint32_t v = g_.edgeVariable[e];
            out_.messageOut[e] = addTable({v}, true);
            p.ops.push_back({TensorOpKind::DampMessage,
                             {raw[e], out_.messageIn[e], out_.weight},
                             out_.messageOut[e],
                             {v},
                             {}});
        }
        addResidual(raw);
        p.fetch = {out_.residual};
        computeLevels(p);
        return std::move(out_);
    }

  private:
    // A computed (or, for the caller to fill, input) table over `vars` and, with `batched`, the
    // instance.
    uint32_t addTable(const std::vector<uint32_t> &vars, bool batched) {
        return addBatchedTable(out_.program, vars, batched, out_.batchVariable, o_.batchFastest);
    }

    bool batched(uint32_t table) const {
        return isBatched(out_.program.tables[table], out_.batchVariable);
    }

    // Each factor as exp(log φ - max log φ): the messages are normalised, so its scale is free.
    void addFactors() {
        for (const LoopyFactor &f : g_.factors) {
            Table t;
            t.scope = f.scope;
            for (uint32_t v : f.scope)
                t.domains.push_back(g_.domainSizes[v]);
            t.input = true;
            const double top = *std::max_element(f.logValues.begin(), f.logValues.end());
            for (double x : f.logValues)
                t.values.push_back(std::isinf(top) ? 0.0 : std::exp(x - top));
            out_.program.tables.push_back(std::move(t));
            factor_.push_back(static_cast<uint32_t>(out_.program.tables.size() - 1));
        }
    }

    void addEvidence() {
        out_.evidenceTable.assign(g_.numVariables(), kNoLoopyTable);
        for (uint32_t v : o_.observed) {
            if (out_.evidenceTable[v] != kNoLoopyTable)
                continue;
            const uint32_t t = addTable({v}, true);
            Table &tab = out_.program.tables[t];
            tab.input = true;
            tab.values.assign(tab.entries(), 1.0);
            out_.evidenceTable[v] = t;
        }
    }

    // Uniform to start, as the dedicated route's (1/d for sum-product, 1 for max-product).
    void addMessages() {
        out_.messageIn.resize(g_.numEdges());
        for (uint32_t e = 0; e < g_.numEdges(); ++e) {
            const uint32_t v = g_.edgeVariable[e];
            const uint32_t t = addTable({v}, true);
            Table &tab = out_.program.tables[t];
            tab.input = true;
            tab.values.assign(tab.entries(), o_.maxProduct ? 1.0 : 1.0 / g_.domainSizes[v]);
            out_.messageIn[e] = t;
        }
    }

    // The tables whose ⊗ is q(u→f) for edge e = (f, u): λ_u and the messages from u's other
    // factors; two or more are joined once and rescaled.
    std::vector<uint32_t> messageIntoFactor(uint32_t e) {
        const uint32_t u = g_.edgeVariable[e];
        std::vector<uint32_t> in;
        if (out_.evidenceTable[u] != kNoLoopyTable)
            in.push_back(out_.evidenceTable[u]);
        for (uint32_t i = g_.variableEdgeStart[u]; i < g_.variableEdgeStart[u + 1]; ++i)
            if (const uint32_t other = g_.variableEdges[i]; other != e)
                in.push_back(out_.messageIn[other]);
        if (in.size() < 2)
            return in;
        const uint32_t joined = addTable({u}, true);
        out_.program.ops.push_back({TensorOpKind::Join, in, joined, {}, {}});
        const uint32_t scale = addTable({}, true);
        out_.program.ops.push_back({TensorOpKind::InverseMax, {joined}, scale, {u}, {}});
        return {joined, scale};
    }

    // raw(f→v) for edge e: φ_f alone for a factor of one variable, else one EliminateBucket.
    uint32_t factorMessage(uint32_t e) {
        const uint32_t f = g_.edgeFactor[e], v = g_.edgeVariable[e];
        const std::vector<uint32_t> &scope = g_.factors[f].scope;
        if (scope.size() == 1)
            return factor_[f];
        std::vector<uint32_t> in{factor_[f]}, eliminated;
        bool anyBatched = false;
        for (uint32_t other = g_.factorEdgeStart[f]; other < g_.factorEdgeStart[f + 1]; ++other) {
            if (other == e)
                continue;
            eliminated.push_back(g_.edgeVariable[other]);
            for (uint32_t t : into_[other]) {
                in.push_back(t);
                anyBatched |= batched(t);
            }
        }
        const uint32_t t = addTable({v}, anyBatched);
        out_.program.ops.push_back({TensorOpKind::EliminateBucket, in, t, eliminated, {}});
        return t;
    }

    // One MessageResidual over every (raw, m) pair, pairs of one shape together (the GPU kernel
    // loops over each run of one shape).
    void addResidual(const std::vector<uint32_t> &raw) {
        std::vector<uint32_t> order(g_.numEdges());
        std::iota(order.begin(), order.end(), 0u);
        auto shape = [&](uint32_t e) {
            return std::pair(g_.domainSizes[g_.edgeVariable[e]], batched(raw[e]));
        };
        std::stable_sort(order.begin(), order.end(),
                         [&](uint32_t a, uint32_t b) { return shape(a) < shape(b); });
        std::vector<uint32_t> pairs;
        for (uint32_t e : order) {
            pairs.push_back(raw[e]);
            pairs.push_back(out_.messageIn[e]);
        }
        out_.residual = addTable({}, true);
        if (!pairs.empty())
            out_.program.ops.push_back(
                {TensorOpKind::MessageResidual, pairs, out_.residual, {}, {}});
    }

    const FactorGraph &g_;
    const LoopyLowering &o_;
    LoopyProgram out_;
    std::vector<uint32_t> factor_;             // per factor: its table
    std::vector<std::vector<uint32_t>> into_;  // per edge: the tables of q(u→f)
};

} // namespace

std::vector<std::pair<uint32_t, uint32_t>> LoopyProgram::swapPairs() const {
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (size_t e = 0; e < messageIn.size(); ++e)
        pairs.emplace_back(messageOut[e], messageIn[e]);
    return pairs;
}

Result<LoopyProgram> lowerLoopySweep(const FactorGraph &graph, const LoopyLowering &options) {
    if (options.batch == 0)
        return error("a batch needs at least one instance");
    for (uint32_t v : options.observed)
        if (v >= graph.numVariables())
            return error("observed variable " + std::to_string(v) + " is not in the model");
    // exp(-708) is near the smallest normal double: a factor spanning more would lose entries.
    const double span = std::log(DBL_MIN);
    for (uint32_t f = 0; f < graph.factors.size(); ++f) {
        const std::vector<double> &x = graph.factors[f].logValues;
        const double top = *std::max_element(x.begin(), x.end());
        for (double v : x)
            if (!std::isinf(v) && v - top < span)
                return errorAt(graph.file, 0,
                               "factor " + std::to_string(f) +
                                   " spans more than e^708 between its entries; the tensor "
                                   "program keeps linear values (use --lbp-program messages)");
    }
    LoopyProgram lowered = Lowering(graph, options).run();
    if (Status s = lowered.program.verify(); !s)
        return error("internal error: loopy BP program: " + s.error().message);
    return lowered;
}

} // namespace zbddc
