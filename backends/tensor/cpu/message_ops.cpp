#include "backends/tensor/cpu/message_ops.h"

#include <algorithm>

namespace zbddc {

namespace {

bool holds(const std::vector<uint32_t> &s, uint32_t v) {
    return std::find(s.begin(), s.end(), v) != s.end();
}

// Where one input's entries sit for an output row: its stride for each output variable, and the
// offsets of every joint value of `inner` (last fastest) from the row's base.
struct InputWalk {
    std::vector<uint64_t> outStride;
    std::vector<uint64_t> innerOffset;

    InputWalk(const TensorProgram &p, const Table &out, uint32_t table,
              const std::vector<uint32_t> &inner) {
        const Table &t = p.tables[table];
        for (uint32_t v : out.scope)
            outStride.push_back(holds(inner, v) ? 0 : variableStride(t, v));
        innerOffset = {0};
        for (uint32_t v : inner) {
            std::vector<uint64_t> next;
            for (uint64_t off : innerOffset)
                for (uint32_t x = 0; x < p.domainSizes[v]; ++x)
                    next.push_back(off + x * variableStride(t, v));
            innerOffset = std::move(next);
        }
    }
    uint64_t base(const std::vector<uint32_t> &digits) const {
        uint64_t at = 0;
        for (size_t i = 0; i < digits.size(); ++i)
            at += digits[i] * outStride[i];
        return at;
    }
};

std::vector<uint32_t> rowDigits(const Table &out, uint64_t row) {
    std::vector<uint32_t> digits(out.scope.size());
    for (size_t i = out.scope.size(); i-- > 0;) {
        digits[i] = static_cast<uint32_t>(row % out.domains[i]);
        row /= out.domains[i];
    }
    return digits;
}

double plus(bool max, double a, double b) {
    return max ? std::max(a, b) : a + b;
}

void dampRows(const TensorProgram &p, const TensorOp &op, const std::vector<const double *> &data,
              double *out, uint64_t begin, uint64_t end) {
    const Table &o = p.tables[op.output];
    const bool max = p.semiring == Semiring::MaxProduct;
    const InputWalk fresh(p, o, op.inputs[0], op.vars), old(p, o, op.inputs[1], op.vars);
    const InputWalk weight(p, o, op.inputs[2], {});
    const double *f = data[op.inputs[0]], *b = data[op.inputs[1]], *w = data[op.inputs[2]];
    // The row's own place in its group: the vars' digits as a joint value, last fastest.
    std::vector<size_t> varPos;
    for (uint32_t v : op.vars)
        varPos.push_back(std::find(o.scope.begin(), o.scope.end(), v) - o.scope.begin());
    const size_t m = fresh.innerOffset.size();
    std::vector<double> damped(m);
    for (uint64_t row = begin; row < end; ++row) {
        const std::vector<uint32_t> digits = rowDigits(o, row);
        const uint64_t bf = fresh.base(digits), bo = old.base(digits);
        const double wr = w[weight.base(digits)];
        double freshSum = 0, total = 0;
        for (size_t e = 0; e < m; ++e)
            freshSum = plus(max, freshSum, f[bf + fresh.innerOffset[e]]);
        for (size_t e = 0; e < m; ++e) {
            const double n = freshSum > 0 ? f[bf + fresh.innerOffset[e]] / freshSum : 0.0;
            damped[e] = dampedEntry(n, b[bo + old.innerOffset[e]], wr);
            total = plus(max, total, damped[e]);
        }
        size_t own = 0;
        for (size_t i = 0; i < varPos.size(); ++i)
            own = own * o.domains[varPos[i]] + digits[varPos[i]];
        out[row - begin] = total > 0 ? damped[own] / total : 0.0;
    }
}

void residualRows(const TensorProgram &p, const TensorOp &op,
                  const std::vector<const double *> &data, double *out, uint64_t begin,
                  uint64_t end) {
    const Table &o = p.tables[op.output];
    const bool max = p.semiring == Semiring::MaxProduct;
    std::vector<InputWalk> walks;
    for (size_t k = 0; k < op.inputs.size(); ++k)
        walks.emplace_back(p, o, op.inputs[k], residualPairVariables(p, op, k / 2));
    for (uint64_t row = begin; row < end; ++row) {
        const std::vector<uint32_t> digits = rowDigits(o, row);
        double worst = 0;
        for (size_t k = 0; k < op.inputs.size(); k += 2) {
            const InputWalk &wa = walks[k], &wb = walks[k + 1];
            const double *a = data[op.inputs[k]] + wa.base(digits);
            const double *b = data[op.inputs[k + 1]] + wb.base(digits);
            double sa = 0, sb = 0;
            for (size_t e = 0; e < wa.innerOffset.size(); ++e) {
                sa = plus(max, sa, a[wa.innerOffset[e]]);
                sb = plus(max, sb, b[wb.innerOffset[e]]);
            }
            for (size_t e = 0; e < wa.innerOffset.size(); ++e)
                worst = std::max(worst, messageDistance(sa > 0 ? a[wa.innerOffset[e]] / sa : 0.0,
                                                        sb > 0 ? b[wb.innerOffset[e]] / sb : 0.0,
                                                        max));
        }
        out[row - begin] = worst;
    }
}

} // namespace

void runMessageOpRows(const TensorProgram &program, const TensorOp &op,
                      const std::vector<const double *> &data, double *out, uint64_t begin,
                      uint64_t end) {
    if (op.kind == TensorOpKind::DampMessage)
        dampRows(program, op, data, out, begin, end);
    else
        residualRows(program, op, data, out, begin, end);
}

} // namespace zbddc
