#include "backends/tensor/cpu/incomplete_plan.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace zbddc::incomplete {

TableRows rowsOf(const TensorProgram &program, const std::vector<TableData> &computed,
                 uint32_t id) {
    const Table &t = program.tables[id];
    if (t.input)
        return {t.sparse ? t.rows.data() : nullptr, t.values.data(), t.values.size()};
    const TableData &d = computed[id];
    return {d.sparse ? d.rows.data() : nullptr, d.values.data(), d.values.size()};
}

uint64_t remap(uint64_t row, const std::vector<DigitMap> &maps) {
    uint64_t out = 0;
    for (const DigitMap &m : maps)
        out += (row / m.stride) % m.domain * m.target;
    return out;
}

Result<OpPlan> planOp(const TensorProgram &p, const TensorOp &op,
                      const std::function<uint64_t(uint32_t)> &rows) {
    const Table &out = p.tables[op.output];
    OpPlan plan;
    // The semiring's zero (forbidden): +infinity, or the int64 word of 2^63 - 1 under MinSumInt64.
    plan.bound = out.sparse ? out.defaultValue : SemiringOps{p.semiring}.zero();
    plan.outEntries = out.entries();
    const bool eliminates = reducesVariables(op.kind);
    std::vector<uint32_t> vars = out.scope;
    if (eliminates)
        vars.insert(vars.end(), op.vars.begin(), op.vars.end());
    double size = 1;
    for (uint32_t v : vars)
        size *= p.domainSizes[v];
    if (size >= 0x1p64)
        return error("incomplete tables: the joined space of an op has 2^64 rows or more");
    std::vector<uint64_t> strides(vars.size(), 1);
    for (size_t i = vars.size(); i-- > 1;)
        strides[i - 1] = strides[i] * p.domainSizes[vars[i]];
    for (size_t i = out.scope.size(); i < vars.size(); ++i)
        plan.elimSize *= p.domainSizes[vars[i]];
    auto where = [&](uint32_t v) {
        return static_cast<size_t>(std::find(vars.begin(), vars.end(), v) - vars.begin());
    };
    std::vector<bool> bound(vars.size(), false);

    // Join order: the smallest first; then a table within the bound variables (it only filters),
    // then the most shared variables, then the fewest rows.
    std::vector<uint32_t> left = op.inputs, order;
    while (!left.empty()) {
        auto score = [&](uint32_t id) {
            size_t shared = 0, fresh = 0;
            for (uint32_t v : p.tables[id].scope)
                if (where(v) < vars.size())
                    (bound[where(v)] ? shared : fresh) += 1;
            return std::make_tuple(order.empty() ? 0 : fresh == 0 ? 1 : 0, shared,
                                   -static_cast<double>(rows(id)));
        };
        size_t best = 0;
        for (size_t i = 1; i < left.size(); ++i)
            if (score(left[i]) > score(left[best]))
                best = i;
        const uint32_t id = left[best];
        const Table &t = p.tables[id];
        const std::vector<uint64_t> ts = tableStrides(t);
        if (order.empty()) {
            plan.first = id;
            for (size_t i = 0; i < t.scope.size(); ++i) {
                const size_t s = where(t.scope[i]);
                if (s < vars.size()) {
                    plan.firstMap.push_back({ts[i], t.domains[i], strides[s]});
                    bound[s] = true;
                }
            }
        } else {
            JoinStep step;
            step.table = id;
            for (size_t i = t.scope.size(); i-- > 0;) {
                const size_t s = where(t.scope[i]);
                if (bound[s]) {
                    step.tableKey.push_back({ts[i], t.domains[i], step.keySpace});
                    step.joinedKey.push_back({strides[s], t.domains[i], step.keySpace});
                    step.keySpace *= t.domains[i];
                } else {
                    step.tablePart.push_back({ts[i], t.domains[i], strides[s]});
                }
            }
            for (uint32_t v : t.scope)
                bound[where(v)] = true;
            plan.steps.push_back(std::move(step));
        }
        order.push_back(id);
        left.erase(left.begin() + best);
    }
    if (op.kind == TensorOpKind::SliceEvidence) {
        const Table &t = p.tables[op.inputs[0]];
        const std::vector<uint64_t> ts = tableStrides(t);
        for (size_t i = 0; i < op.vars.size(); ++i) {
            const size_t at =
                std::find(t.scope.begin(), t.scope.end(), op.vars[i]) - t.scope.begin();
            plan.fixed.push_back({ts[at], t.domains[at], ts[at]});
            plan.fixedValue += op.values[i] * ts[at];
        }
    }
    return plan;
}

} // namespace zbddc::incomplete
