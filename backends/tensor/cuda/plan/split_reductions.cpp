#include "backends/tensor/cuda/plan/split_reductions.h"

#include <algorithm>

namespace zbddc::cuda {

namespace {

// Appends `op` to `out`, split where it is wide; the second op of a split is placed the same way,
// so a reduction onto one row ends in a few short stages rather than one long warp.
void placeOp(const TensorOp &op, TensorProgram &out, const SplitReductionOptions &options) {
    const bool splittable = op.kind == TensorOpKind::EliminateBucket ||
                            op.kind == TensorOpKind::Marginalize ||
                            op.kind == TensorOpKind::InverseMax;
    const uint64_t rows = out.tables[op.output].entries();
    uint64_t m = 1;
    for (uint32_t v : op.vars)
        m *= out.domainSizes[v];
    if (!splittable || rows >= options.minRows || m < options.minEliminated ||
        op.vars.size() < 2) {
        out.ops.push_back(op);
        return;
    }
    // Keep leading eliminated variables while the first op's rows stay under minRows and each
    // of its rows still reduces at least 32 values.
    std::vector<uint32_t> kept;
    uint64_t keptSize = 1;
    for (size_t i = 0; i + 1 < op.vars.size(); ++i) {
        const uint64_t d = out.domainSizes[op.vars[i]];
        if (rows * keptSize * d > options.minRows * 4 || m / (keptSize * d) < 32)
            break;
        kept.push_back(op.vars[i]);
        keptSize *= d;
    }
    if (kept.empty()) {
        out.ops.push_back(op);
        return;
    }
    // The partial table: the output's scope with the kept variables before its last one (a
    // batched program's case index stays fastest).
    Table partial;
    partial.scope = out.tables[op.output].scope;
    const auto at = partial.scope.empty() ? partial.scope.end() : partial.scope.end() - 1;
    partial.scope.insert(at, kept.begin(), kept.end());
    for (uint32_t v : partial.scope)
        partial.domains.push_back(out.domainSizes[v]);
    out.tables.push_back(std::move(partial));
    const auto partialId = static_cast<uint32_t>(out.tables.size() - 1);
    std::vector<uint32_t> rest;
    for (uint32_t v : op.vars)
        if (std::find(kept.begin(), kept.end(), v) == kept.end())
            rest.push_back(v);
    const bool inverseMax = op.kind == TensorOpKind::InverseMax; // ⊕ of the rest first (header)
    out.ops.push_back({inverseMax ? TensorOpKind::Marginalize : op.kind, op.inputs, partialId, rest,
                       {}});
    placeOp({inverseMax ? op.kind : TensorOpKind::Marginalize, {partialId}, op.output, kept, {}},
            out, options);
}

} // namespace

TensorProgram splitWideReductions(const TensorProgram &program,
                                  const SplitReductionOptions &options) {
    TensorProgram out = program;
    out.ops.clear();
    for (const TensorOp &op : program.ops)
        placeOp(op, out, options);
    computeLevels(out);
    return out;
}

} // namespace zbddc::cuda
