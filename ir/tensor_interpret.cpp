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

// ⊕ over every joint value of `vars` of value(), restoring their values in `assignment` after.
template <class Value>
double sumOver(const TensorProgram &p, const SemiringOps &ring, const std::vector<uint32_t> &vars,
               std::vector<uint32_t> &assignment, const Value &value) {
    std::vector<uint32_t> kept;
    for (uint32_t v : vars) {
        kept.push_back(assignment[v]);
        assignment[v] = 0;
    }
    double acc = ring.zero();
    do
        acc = ring.plus(acc, value());
    while (nextCombination(p, vars, assignment));
    for (size_t i = 0; i < vars.size(); ++i)
        assignment[vars[i]] = kept[i];
    return acc;
}

// DampMessage at `assignment` (tensor_program.h), straight from the definition.
double dampMessageAt(const TensorProgram &p, const std::vector<std::vector<double>> &computed,
                     const TensorOp &op, std::vector<uint32_t> &assignment) {
    const SemiringOps ring{p.semiring};
    auto at = [&](uint32_t k) { return tableValueAt(p, computed, op.inputs[k], assignment); };
    const double w = at(2);
    const double freshSum = sumOver(p, ring, op.vars, assignment, [&] { return at(0); });
    auto damped = [&] {
        return dampedEntry(freshSum > 0 ? at(0) / freshSum : 0.0, at(1), w);
    };
    const double total = sumOver(p, ring, op.vars, assignment, damped);
    return total > 0 ? damped() / total : 0.0;
}

// MessageResidual at `assignment`: each pair's variables outside the output enumerated.
double messageResidualAt(const TensorProgram &p, const std::vector<std::vector<double>> &computed,
                         const TensorOp &op, std::vector<uint32_t> &assignment) {
    const SemiringOps ring{p.semiring};
    double worst = 0;
    for (size_t k = 0; k < op.inputs.size(); k += 2) {
        const std::vector<uint32_t> inner = residualPairVariables(p, op, k / 2);
        auto a = [&] { return tableValueAt(p, computed, op.inputs[k], assignment); };
        auto b = [&] { return tableValueAt(p, computed, op.inputs[k + 1], assignment); };
        const double sa = sumOver(p, ring, inner, assignment, a);
        const double sb = sumOver(p, ring, inner, assignment, b);
        sumOver(p, ring, inner, assignment, [&] {
            worst = std::max(worst, messageDistance(sa > 0 ? a() / sa : 0.0, sb > 0 ? b() / sb : 0.0,
                                                    p.semiring == Semiring::MaxProduct));
            return 0.0;
        });
    }
    return worst;
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
            case TensorOpKind::DampMessage:
                values[row] = dampMessageAt(program, computed, op, assignment);
                break;
            case TensorOpKind::MessageResidual:
                values[row] = messageResidualAt(program, computed, op, assignment);
                break;
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
    const std::vector<uint32_t> none; // result tables are scalars
    return programResult(program, [&](uint32_t id, uint64_t) {
        return tableValueAt(program, computed, id, none);
    });
}

} // namespace zbddc
