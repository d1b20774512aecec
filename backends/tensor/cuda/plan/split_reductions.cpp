#include "backends/tensor/cuda/plan/split_reductions.h"

#include <algorithm>

namespace zbddc::cuda {

TensorProgram splitWideReductions(const TensorProgram &program,
                                  const SplitReductionOptions &options) {
    TensorProgram out = program;
    out.ops.clear();
    for (const TensorOp &op : program.ops) {
        const bool splittable =
            op.kind == TensorOpKind::EliminateBucket || op.kind == TensorOpKind::Marginalize;
        const Table &result = program.tables[op.output];
        const uint64_t rows = result.entries();
        uint64_t m = 1;
        for (uint32_t v : op.vars)
            m *= program.domainSizes[v];
        if (!splittable || rows >= options.minRows || m < options.minEliminated ||
            op.vars.size() < 2) {
            out.ops.push_back(op);
            continue;
        }
        // Keep leading eliminated variables while the first op's rows stay under minRows and each
        // of its rows still reduces at least 32 values.
        std::vector<uint32_t> kept;
        uint64_t keptSize = 1;
        for (size_t i = 0; i + 1 < op.vars.size(); ++i) {
            const uint64_t d = program.domainSizes[op.vars[i]];
            if (rows * keptSize * d > options.minRows * 4 || m / (keptSize * d) < 32)
                break;
            kept.push_back(op.vars[i]);
            keptSize *= d;
        }
        if (kept.empty()) {
            out.ops.push_back(op);
            continue;
        }
        // The partial table: the output's scope with the kept variables before its last one (a
        // batched program's case index stays fastest).
        Table partial;
        partial.scope = result.scope;
        const auto at = partial.scope.empty() ? partial.scope.end() : partial.scope.end() - 1;
        partial.scope.insert(at, kept.begin(), kept.end());
        for (uint32_t v : partial.scope)
            partial.domains.push_back(program.domainSizes[v]);
        out.tables.push_back(std::move(partial));
        const auto partialId = static_cast<uint32_t>(out.tables.size() - 1);
        std::vector<uint32_t> rest;
        for (uint32_t v : op.vars)
            if (std::find(kept.begin(), kept.end(), v) == kept.end())
                rest.push_back(v);
        out.ops.push_back({op.kind, op.inputs, partialId, rest, {}});
        out.ops.push_back({TensorOpKind::Marginalize, {partialId}, op.output, kept, {}});
    }
    computeLevels(out);
    return out;
}

} // namespace zbddc::cuda
