#include "ir/tensor_interpret.h"

#include <algorithm>

namespace zbddc {

namespace {

// Advances `assignment` over `vars` (last fastest); false after the last combination.
bool nextCombination(const TensorProgram &p, const std::vector<uint32_t> &vars,
                     std::vector<uint32_t> &assignment) {
    for (size_t i = vars.size(); i-- > 0;) {
        if (++assignment[vars[i]] < p.domainSizes[vars[i]])
            return true;
        assignment[vars[i]] = 0;
    }
    return false;
}

} // namespace

Result<std::vector<std::vector<double>>> interpretTensorProgram(const TensorProgram &program) {
    if (Status s = program.verify(); !s)
        return s.error();
    const SemiringOps ring{program.semiring};
    std::vector<std::vector<double>> computed(program.tables.size());
    std::vector<uint32_t> assignment(program.domainSizes.size(), 0);
    for (const TensorOp &op : program.ops) {
        const Table &out = program.tables[op.output];
        std::vector<double> &values = computed[op.output];
        values.assign(out.entries(), 0.0);
        for (uint64_t row = 0; row < values.size(); ++row) {
            uint64_t rest = row; // decode the row into the output scope's variables
            for (size_t i = out.scope.size(); i-- > 0;) {
                assignment[out.scope[i]] = static_cast<uint32_t>(rest % out.domains[i]);
                rest /= out.domains[i];
            }
            auto joined = [&] {
                double v = ring.one();
                for (uint32_t in : op.inputs)
                    v = ring.times(v, tableValueAt(program, computed, in, assignment));
                return v;
            };
            switch (op.kind) {
            case TensorOpKind::Join:
                values[row] = joined();
                break;
            case TensorOpKind::SliceEvidence:
                for (size_t i = 0; i < op.vars.size(); ++i)
                    assignment[op.vars[i]] = op.values[i];
                values[row] = joined();
                break;
            case TensorOpKind::Marginalize:
            case TensorOpKind::EliminateBucket: {
                double acc = ring.zero();
                for (uint32_t v : op.vars)
                    assignment[v] = 0;
                do
                    acc = ring.plus(acc, joined());
                while (nextCombination(program, op.vars, assignment));
                values[row] = acc;
                break;
            }
            case TensorOpKind::InverseMax: {
                double max = 0;
                for (uint32_t v : op.vars)
                    assignment[v] = 0;
                do
                    max = std::max(max, tableValueAt(program, computed, op.inputs[0], assignment));
                while (nextCombination(program, op.vars, assignment));
                values[row] = max > 0 ? 1 / max : 1;
                break;
            }
            }
            // An incomplete output (ir/incomplete_tables.h) keeps only rows ⊕-better than its
            // default; every other row reads as the default.
            if (out.sparse && !ring.better(values[row], out.defaultValue))
                values[row] = out.defaultValue;
        }
    }
    return computed;
}

double programResult(const TensorProgram &program,
                     const std::vector<std::vector<double>> &computed) {
    const SemiringOps ring{program.semiring};
    double v = ring.one();
    const std::vector<uint32_t> none;
    for (uint32_t r : program.results)
        v = ring.times(v, tableValueAt(program, computed, r, none));
    return v;
}

} // namespace zbddc
