#include "compiler/elimination/partition_program.h"

#include "compiler/elimination/bucket_program.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace zbddc {

namespace {

constexpr uint32_t kNoScale = UINT32_MAX;

// An input table's -ln p turned into p / max p; returns ln max p (-infinity where every p is 0,
// the table then all zeros).
double toScaledWeights(Table &t) {
    double least = std::numeric_limits<double>::infinity();
    for (double c : t.values)
        least = std::min(least, c);
    if (t.sparse && t.rows.size() < t.entries())
        least = std::min(least, t.defaultValue);
    auto weight = [&](double c) { return std::isinf(least) ? 0.0 : std::exp(least - c); };
    for (double &c : t.values)
        c = weight(c);
    t.defaultValue = weight(t.defaultValue);
    return -least;
}

// Whether a table computed by `op` is rescaled before it is read: every table of non-empty scope
// that a bucket or a slice produces.
bool rescaled(const TensorOp &op, const Table &out) {
    return !out.scope.empty() &&
           (op.kind == TensorOpKind::EliminateBucket || op.kind == TensorOpKind::Marginalize ||
            op.kind == TensorOpKind::SliceEvidence);
}

} // namespace

Result<PartitionProgram> buildPartitionProgram(const CostNetwork &network,
                                               const std::vector<uint32_t> &order,
                                               const std::vector<uint32_t> &evidence) {
    if (network.integerCosts || network.int64Costs)
        return error("the partition function needs a model of weights (a UAI network read as "
                     "-ln p), not a weighted CSP's costs");
    auto built = buildBucketProgram(network, order, {true, evidence});
    if (!built)
        return built.error();
    PartitionProgram out;
    TensorProgram &p = out.program;
    p = std::move(*built);
    p.semiring = Semiring::SumProduct;
    for (Table &t : p.tables)
        if (t.input)
            out.logScale += toScaledWeights(t);
    // A free variable in no table multiplies Z by its domain size; the program never sees it.
    std::vector<uint8_t> inScope(network.numVariables(), 0);
    for (const CostFunction &f : network.functions)
        for (uint32_t v : f.scope)
            inScope[v] = 1;
    for (uint32_t v = 0; v < network.numVariables(); ++v)
        if (!inScope[v] && (evidence.empty() || evidence[v] == UINT32_MAX))
            out.logScale += std::log(double(network.domainSizes[v]));

    // Every message is read by exactly one bucket (the one it is placed in), so each scale is
    // multiplied in once and divided out once, at the end.
    std::vector<TensorOp> ops;
    std::vector<uint32_t> scaleOf(p.tables.size(), kNoScale);
    for (TensorOp op : p.ops) {
        for (size_t i = 0, n = op.inputs.size(); i < n; ++i)
            if (scaleOf[op.inputs[i]] != kNoScale)
                op.inputs.push_back(scaleOf[op.inputs[i]]);
        const uint32_t produced = op.output;
        const bool scale = rescaled(op, p.tables[produced]);
        ops.push_back(std::move(op));
        if (!scale)
            continue;
        p.tables.emplace_back(); // a scalar: the reciprocal of the message's largest entry
        const auto id = static_cast<uint32_t>(p.tables.size() - 1);
        scaleOf.resize(p.tables.size(), kNoScale);
        scaleOf[produced] = id;
        out.scales.push_back(id);
        ops.push_back({TensorOpKind::InverseMax, {produced}, id, p.tables[produced].scope, {}});
    }
    p.ops = std::move(ops);
    computeLevels(p);
    if (Status s = p.verify(); !s)
        return error("internal error: partition program fails verification: " + s.error().message);
    return out;
}

double partitionLog(const PartitionProgram &p, const std::vector<std::vector<double>> &tables) {
    const std::vector<uint32_t> none(p.program.domainSizes.size(), 0);
    double log = p.logScale;
    for (uint32_t r : p.program.results) {
        const double z = tableValueAt(p.program, tables, r, none);
        if (!(z > 0))
            return -std::numeric_limits<double>::infinity();
        log += std::log(z);
    }
    for (uint32_t s : p.scales)
        log -= std::log(tableValueAt(p.program, tables, s, none));
    return log;
}

} // namespace zbddc
