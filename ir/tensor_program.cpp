#include "ir/tensor_program.h"

#include "ir/mpe_tie.h"
#include "support/name_table.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace zbddc {

uint64_t Table::entries() const {
    uint64_t n = 1;
    for (uint32_t d : domains)
        n *= d;
    return n;
}

std::vector<double> Table::denseValues() const {
    if (!sparse)
        return values;
    std::vector<double> dense(entries(), defaultValue);
    for (size_t r = 0; r < rows.size(); ++r)
        dense[rows[r]] = values[r];
    return dense;
}

const char *tensorOpKindName(TensorOpKind kind) {
    using K = TensorOpKind;
    constexpr Named<TensorOpKind> kNames[] = {
        {K::Join, "join"}, {K::Marginalize, "marginalize"},
        {K::EliminateBucket, "eliminate_bucket"}, {K::SliceEvidence, "slice_evidence"},
        {K::InverseMax, "inverse_max"}, {K::DampMessage, "damp_message"},
        {K::MessageResidual, "message_residual"}};
    return nameIn(kNames, kind);
}

double dampedEntry(double fresh, double old, double w) {
    if (w == 0)
        return fresh;
    if (w == 1)
        return old;
    return fresh == 0 || old == 0 ? 0.0 : std::pow(fresh, 1 - w) * std::pow(old, w);
}

double messageDistance(double p, double q, bool logDistance) {
    if (!logDistance)
        return std::abs(p - q);
    if (p == 0 || q == 0)
        return p == q ? 0.0 : INFINITY;
    return std::abs(std::log(p) - std::log(q));
}

std::vector<uint32_t> residualPairVariables(const TensorProgram &p, const TensorOp &op, size_t k) {
    const std::vector<uint32_t> &out = p.tables[op.output].scope;
    std::vector<uint32_t> inner;
    for (uint32_t t : {op.inputs[2 * k], op.inputs[2 * k + 1]})
        for (uint32_t v : p.tables[t].scope)
            if (std::find(out.begin(), out.end(), v) == out.end() &&
                std::find(inner.begin(), inner.end(), v) == inner.end())
                inner.push_back(v);
    return inner;
}

void writeEvidenceIndicators(TensorProgram &program, std::span<const uint32_t> evidenceTables,
                             uint32_t batchVariable, uint32_t b, std::span<const uint32_t> states) {
    for (uint32_t v = 0; v < evidenceTables.size(); ++v) {
        if (evidenceTables[v] == UINT32_MAX)
            continue;
        Table &t = program.tables[evidenceTables[v]]; // over v and the case: rows by strides
        const uint64_t base = b * variableStride(t, batchVariable), stride = variableStride(t, v);
        for (uint32_t x = 0; x < program.domainSizes[v]; ++x) {
            const bool allowed = v >= states.size() || states[v] == UINT32_MAX || states[v] == x;
            t.values[base + x * stride] = allowed ? 1.0 : 0.0;
        }
    }
}

uint32_t addBatchedTable(TensorProgram &program, std::span<const uint32_t> vars, bool batched,
                         uint32_t batchVariable, bool batchFastest) {
    Table t;
    t.scope.reserve(vars.size() + batched);
    t.domains.reserve(vars.size() + batched);
    if (batched && !batchFastest)
        t.scope.push_back(batchVariable);
    t.scope.insert(t.scope.end(), vars.begin(), vars.end());
    if (batched && batchFastest)
        t.scope.push_back(batchVariable);
    for (uint32_t v : t.scope)
        t.domains.push_back(program.domainSizes[v]);
    program.tables.push_back(std::move(t));
    return static_cast<uint32_t>(program.tables.size() - 1);
}

bool isBatched(const Table &table, uint32_t batchVariable) {
    return std::find(table.scope.begin(), table.scope.end(), batchVariable) != table.scope.end();
}

Status refuseMessageOps(const TensorProgram &program, std::string_view who) {
    for (const TensorOp &op : program.ops)
        if (isMessageOp(op.kind))
            return error(std::string(who) + " does not run loopy BP's message ops (" +
                         tensorOpKindName(op.kind) +
                         "): the interpreter and the CPU executor do");
    return Ok{};
}

uint64_t variableStride(const Table &table, uint32_t v) {
    const auto it = std::find(table.scope.begin(), table.scope.end(), v);
    if (it == table.scope.end())
        return 0;
    uint64_t stride = 1;
    for (size_t i = static_cast<size_t>(it - table.scope.begin()) + 1; i < table.domains.size();
         ++i)
        stride *= table.domains[i];
    return stride;
}

std::vector<uint64_t> tableStrides(const Table &table) {
    std::vector<uint64_t> strides(table.scope.size());
    uint64_t s = 1;
    for (size_t i = table.scope.size(); i-- > 0;) {
        strides[i] = s;
        s *= table.domains[i];
    }
    return strides;
}

double inputTableValue(const Table &table, uint64_t row) {
    if (!table.sparse)
        return table.values[row];
    const auto it = std::lower_bound(table.rows.begin(), table.rows.end(), row);
    if (it == table.rows.end() || *it != row)
        return table.defaultValue;
    return table.values[static_cast<size_t>(it - table.rows.begin())];
}

double tableValueAt(const TensorProgram &program, const std::vector<std::vector<double>> &computed,
                    uint32_t id, std::span<const uint32_t> assignment) {
    const Table &t = program.tables[id];
    uint64_t row = 0;
    for (size_t i = 0; i < t.scope.size(); ++i)
        row = row * t.domains[i] + assignment[t.scope[i]];
    return t.input ? inputTableValue(t, row) : computed[id][row];
}

void computeLevels(TensorProgram &program) {
    std::vector<int> producerLevel(program.tables.size(), -1);
    program.levels.clear();
    for (uint32_t op = 0; op < program.ops.size(); ++op) {
        int level = 0;
        for (uint32_t in : program.ops[op].inputs)
            level = std::max(level, producerLevel[in] + 1);
        producerLevel[program.ops[op].output] = level;
        if (program.levels.size() <= static_cast<size_t>(level))
            program.levels.resize(level + 1);
        program.levels[level].push_back(op);
    }
}

double tensorProgramWork(const TensorProgram &program) {
    double work = 0;
    std::vector<uint32_t> vars;
    for (const TensorOp &op : program.ops) {
        vars = program.tables[op.output].scope;
        if (reducesVariables(op.kind))
            for (uint32_t in : op.inputs)
                vars.insert(vars.end(), program.tables[in].scope.begin(),
                            program.tables[in].scope.end());
        std::sort(vars.begin(), vars.end());
        vars.erase(std::unique(vars.begin(), vars.end()), vars.end());
        double entries = 1;
        for (uint32_t v : vars)
            entries *= program.domainSizes[v];
        work += entries;
    }
    return work;
}

namespace {
bool contains(const std::vector<uint32_t> &v, uint32_t x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

bool sameVariables(const std::vector<uint32_t> &a, const std::vector<uint32_t> &b) {
    return a.size() == b.size() && std::all_of(a.begin(), a.end(), [&](uint32_t v) {
               return contains(b, v);
           });
}

// The scope rules of DampMessage and MessageResidual (tensor_program.h).
Status verifyMessageOp(const TensorProgram &p, const TensorOp &op,
                       const std::vector<uint32_t> &unionScope) {
    if (p.semiring != Semiring::SumProduct && p.semiring != Semiring::MaxProduct)
        return error("needs a product semiring");
    const std::vector<uint32_t> &out = p.tables[op.output].scope;
    if (op.kind == TensorOpKind::DampMessage) {
        if (op.inputs.size() != 3)
            return error("needs three inputs (fresh, old, weight)");
        std::vector<uint32_t> messages = p.tables[op.inputs[0]].scope;
        for (uint32_t v : p.tables[op.inputs[1]].scope)
            if (!contains(messages, v))
                messages.push_back(v);
        if (!sameVariables(messages, out) || !sameVariables(unionScope, out))
            return error("output scope is not the messages' union, or the weight adds variables");
        if (op.vars.empty())
            return error("normalises over no variable");
        for (uint32_t v : op.vars)
            if (!contains(out, v) || contains(p.tables[op.inputs[2]].scope, v))
                return error("normalises over variable " + std::to_string(v) +
                             ", which is not in its scope or is in the weight's");
        return Ok{};
    }
    if (op.inputs.empty() || op.inputs.size() % 2 != 0 || !op.vars.empty())
        return error("needs pairs of inputs and no variables");
    for (size_t k = 0; k < op.inputs.size(); k += 2)
        for (uint32_t v : out)
            if (!contains(p.tables[op.inputs[k]].scope, v) &&
                !contains(p.tables[op.inputs[k + 1]].scope, v))
                return error("output variable " + std::to_string(v) + " is not in pair " +
                             std::to_string(k / 2));
    return Ok{};
}
} // namespace

Status TensorProgram::verify() const {
    const size_t nt = tables.size();
    for (size_t t = 0; t < nt; ++t) {
        const Table &tab = tables[t];
        const auto name = [t] { return "table " + std::to_string(t); }; // for errors only
        if (tab.scope.size() != tab.domains.size())
            return error(name() + ": scope and domains differ in length");
        for (size_t i = 0; i < tab.scope.size(); ++i) {
            if (tab.scope[i] >= domainSizes.size())
                return error(name() + ": unknown variable " + std::to_string(tab.scope[i]));
            if (tab.domains[i] != domainSizes[tab.scope[i]])
                return error(name() + ": domain of variable " + std::to_string(tab.scope[i]) +
                             " disagrees with the program");
            for (size_t j = 0; j < i; ++j)
                if (tab.scope[j] == tab.scope[i])
                    return error(name() + ": variable repeated in scope");
        }
        if (tab.input) {
            if (!tab.sparse && tab.values.size() != tab.entries())
                return error(name() + ": complete input table has the wrong number of values");
            if (tab.sparse && (tab.values.size() != tab.rows.size() ||
                               !std::is_sorted(tab.rows.begin(), tab.rows.end())))
                return error(name() + ": sparse rows unsorted or without values");
        }
    }
    std::vector<bool> written(nt, false);
    for (size_t t = 0; t < nt; ++t)
        written[t] = tables[t].input;
    std::vector<uint32_t> unionScope; // per op; one buffer for all (a case's tree: 10^3 ops)
    for (size_t o = 0; o < ops.size(); ++o) {
        const TensorOp &op = ops[o];
        const auto name = [&] {
            return "op " + std::to_string(o) + " (" + tensorOpKindName(op.kind) + ")";
        };
        if (op.output >= nt || written[op.output])
            return error(name() + ": output table missing or written twice");
        unionScope.clear();
        for (uint32_t in : op.inputs) {
            if (in >= nt || !written[in])
                return error(name() + ": reads table " + std::to_string(in) +
                             " before it is written");
            for (uint32_t v : tables[in].scope)
                if (!contains(unionScope, v))
                    unionScope.push_back(v);
        }
        if (isMessageOp(op.kind)) {
            if (Status s = verifyMessageOp(*this, op, unionScope); !s)
                return error(name() + ": " + s.error().message);
            written[op.output] = true;
            continue;
        }
        const bool single = op.kind == TensorOpKind::Marginalize ||
                            op.kind == TensorOpKind::SliceEvidence ||
                            op.kind == TensorOpKind::InverseMax;
        if (op.kind == TensorOpKind::InverseMax && semiring != Semiring::SumProduct &&
            semiring != Semiring::MaxProduct)
            return error(name() + ": needs a product semiring");
        if (single && op.inputs.size() != 1)
            return error(name() + ": needs exactly one input");
        if (op.kind == TensorOpKind::SliceEvidence && op.values.size() != op.vars.size())
            return error(name() + ": one value per fixed variable needed");
        for (size_t i = 0; i < op.vars.size(); ++i) {
            if (!contains(unionScope, op.vars[i]))
                return error(name() + ": variable " + std::to_string(op.vars[i]) +
                             " is not in the inputs' scope");
            if (op.kind == TensorOpKind::SliceEvidence && op.values[i] >= domainSizes[op.vars[i]])
                return error(name() + ": value outside the domain");
        }
        // The output scope must be exactly the union minus the eliminated/fixed variables.
        const auto &out = tables[op.output].scope;
        size_t expected = 0;
        for (uint32_t v : unionScope)
            if (!contains(op.vars, v)) {
                ++expected;
                if (!contains(out, v))
                    return error(name() + ": output scope lacks variable " + std::to_string(v));
            }
        if (out.size() != expected)
            return error(name() + ": output scope has extra variables");
        written[op.output] = true;
    }
    std::vector<bool> seen(ops.size(), false);
    std::vector<int> levelOf(nt, -1);
    for (size_t l = 0; l < levels.size(); ++l)
        for (uint32_t o : levels[l]) {
            if (o >= ops.size() || seen[o])
                return error("level " + std::to_string(l) + ": op missing or listed twice");
            seen[o] = true;
            levelOf[ops[o].output] = static_cast<int>(l);
        }
    for (size_t o = 0; o < ops.size(); ++o) {
        if (!seen[o])
            return error("op " + std::to_string(o) + " is in no level");
        for (uint32_t in : ops[o].inputs)
            if (levelOf[in] >= levelOf[ops[o].output])
                return error("op " + std::to_string(o) +
                             " reads a table of its own or a later level");
    }
    for (uint32_t r : results)
        if (r >= nt || !written[r] || !tables[r].scope.empty())
            return error("result table " + std::to_string(r) + " is not an empty-scope table");
    for (uint32_t f : fetch)
        if (f >= nt || tables[f].input)
            return error("fetched table " + std::to_string(f) + " is not a computed table");
    return Ok{};
}

std::string TensorProgram::dump() const {
    std::ostringstream s;
    s << "tensor_program semiring=" << semiringName(semiring) << " variables=" << domainSizes.size()
      << " tables=" << tables.size() << " ops=" << ops.size() << " levels=" << levels.size()
      << "\n";
    auto scope = [&](uint32_t t) {
        std::ostringstream o;
        o << "t" << t << "(";
        for (size_t i = 0; i < tables[t].scope.size(); ++i)
            o << (i ? "," : "") << "x" << tables[t].scope[i];
        o << ")";
        return o.str();
    };
    for (size_t l = 0; l < levels.size(); ++l) {
        s << "level " << l << ":\n";
        for (uint32_t o : levels[l]) {
            const TensorOp &op = ops[o];
            s << "  " << scope(op.output) << " = " << tensorOpKindName(op.kind);
            for (size_t i = 0; i < op.vars.size(); ++i) {
                s << (i ? "," : " [") << "x" << op.vars[i];
                if (op.kind == TensorOpKind::SliceEvidence)
                    s << "=" << op.values[i];
            }
            s << (op.vars.empty() ? "" : "]");
            for (uint32_t in : op.inputs)
                s << " " << scope(in);
            s << "\n";
        }
    }
    return s.str();
}

std::vector<uint8_t> scaleOnlyTables(const TensorProgram &program) {
    // Per table, who reads it: bit 0 a scale (an InverseMax over variables, or an op writing a
    // table only scales read: a split scale's stages), bit 1 anything else. Readers come after
    // their inputs' writers, so a walk from the last op finds each op's output decided.
    std::vector<uint8_t> readers(program.tables.size(), 0);
    for (uint32_t r : program.results)
        readers[r] = 2;
    for (size_t o = program.ops.size(); o-- > 0;) {
        const TensorOp &op = program.ops[o];
        const bool scaling =
            (op.kind == TensorOpKind::InverseMax && !op.vars.empty()) || readers[op.output] == 1;
        for (uint32_t in : op.inputs)
            readers[in] |= scaling ? 1 : 2;
    }
    std::vector<uint8_t> only(program.tables.size(), 0);
    for (size_t t = 0; t < only.size(); ++t)
        only[t] = readers[t] == 1;
    return only;
}

namespace {

// recoverAssignment's walk, reading rows through `rowValue` (inlined for complete tables). Each
// op's eliminated variables run as an odometer (last fastest) that moves the rows of the inputs
// holding a variable by its stride, rather than recomputing the rows from the assignment per
// joint value; pinned variables keep their value and are not enumerated.
// `lowest`: recoverLowestAssignment's rule in place of the first best met; `ratio` carries the
// best completion's value over the optimum from op to op.
template <class RowValueOf>
void traceBack(const TensorProgram &program, RowValueOf &&rowValue,
               std::vector<uint32_t> &assignment, const std::vector<uint8_t> *pinned,
               bool *tied = nullptr, bool lowest = false) {
    const SemiringOps ring{program.semiring};
    const std::vector<uint8_t> scaleOnly = scaleOnlyTables(program);
    std::vector<uint32_t> free, best;
    std::vector<uint64_t> rows, strides;
    std::vector<uint32_t> groupOf, byGroup;
    std::vector<size_t> groupAt, cursor;
    std::vector<double> partial;
    std::vector<double> values; // lowest: every joint value's, in the odometer's order
    double ratio = 1;
    for (size_t o = program.ops.size(); o-- > 0;) {
        const TensorOp &op = program.ops[o];
        if ((op.kind != TensorOpKind::Marginalize && op.kind != TensorOpKind::EliminateBucket) ||
            scaleOnly[op.output])
            continue;
        free.clear();
        for (uint32_t v : op.vars)
            if (!pinned || !(*pinned)[v]) {
                free.push_back(v);
                assignment[v] = 0;
            }
        const size_t n = op.inputs.size(), f = free.size();
        rows.assign(n, 0);
        strides.assign(n * f, 0); // strides[k * f + i]: free[i]'s stride in input k
        for (size_t k = 0; k < n; ++k) {
            const Table &t = program.tables[op.inputs[k]];
            uint64_t stride = 1;
            for (size_t j = t.scope.size(); j-- > 0;) {
                rows[k] += stride * assignment[t.scope[j]];
                for (size_t i = 0; i < f; ++i)
                    if (free[i] == t.scope[j])
                        strides[k * f + i] = stride;
                stride *= t.domains[j];
            }
        }
        // The inputs by the last free variable they hold (group i + 1; group 0 holds none): a
        // step of the odometer at free variable p moves the rows of groups p + 1 and later only,
        // and the product of the groups before is kept (`partial[g]`: groups 0..g-1). A lazy-
        // propagation bucket has dozens of inputs, most of them not moved by the fastest
        // variables (pathfinder's largest walk: 32,256 joint values of 69 inputs).
        groupAt.assign(f + 2, 0);
        groupOf.assign(n, 0);
        for (size_t k = 0; k < n; ++k) {
            for (size_t i = 0; i < f; ++i)
                if (strides[k * f + i] != 0)
                    groupOf[k] = static_cast<uint32_t>(i + 1);
            ++groupAt[groupOf[k] + 1];
        }
        for (size_t g = 0; g <= f; ++g)
            groupAt[g + 1] += groupAt[g];
        byGroup.resize(n);
        cursor.assign(groupAt.begin(), groupAt.end() - 1);
        for (size_t k = 0; k < n; ++k)
            byGroup[cursor[groupOf[k]]++] = static_cast<uint32_t>(k);
        partial.assign(f + 2, ring.one());
        const auto multiplyFrom = [&](size_t group) {
            for (size_t g = group; g <= f; ++g) {
                double p = partial[g];
                for (size_t j = groupAt[g]; j < groupAt[g + 1]; ++j)
                    p = ring.times(p, rowValue(op.inputs[byGroup[j]], rows[byGroup[j]]));
                partial[g + 1] = p;
            }
        };
        multiplyFrom(0);
        best.assign(f, 0);
        double bestValue = 0, runnerUp = 0; // runnerUp: the ⊕-best of the values not kept
        bool first = true, second = false;
        while (true) {
            double value = partial[f + 1];
            if (lowest)
                values.push_back(value);
            if (first || beatsBeyondTie(program.semiring, value, bestValue)) {
                if (!first)
                    std::swap(value, bestValue); // the one kept before is now a runner-up
                else
                    bestValue = value;
                for (size_t i = 0; i < f; ++i)
                    best[i] = assignment[free[i]];
            }
            if (!first && (!second || ring.better(value, runnerUp))) {
                runnerUp = value;
                second = true;
            }
            first = false;
            size_t i = f;
            for (; i > 0; --i) {
                const uint32_t v = free[i - 1];
                const auto moved = [&](size_t j) { return byGroup[j] * f + i - 1; };
                if (++assignment[v] < program.domainSizes[v]) {
                    for (size_t j = groupAt[i]; j < n; ++j)
                        rows[byGroup[j]] += strides[moved(j)];
                    break;
                }
                for (size_t j = groupAt[i]; j < n; ++j)
                    rows[byGroup[j]] -= strides[moved(j)] * (program.domainSizes[v] - 1);
                assignment[v] = 0;
            }
            if (i == 0)
                break;
            multiplyFrom(i);
        }
        const double top = lowest && f > 0 ? *std::max_element(values.begin(), values.end()) : 0;
        if (top > 0) {
            // The first joint value (the lowest, the last variable fastest) whose best
            // completion reaches the optimum, which the ops before chose against.
            size_t j = 0;
            while (j + 1 < values.size() &&
                   !reachesWithinTie(Semiring::MaxProduct, ratio * (values[j] / top), 1.0))
                ++j;
            ratio *= values[j] / top;
            for (size_t i = f; i-- > 0; j /= program.domainSizes[free[i]])
                best[i] = static_cast<uint32_t>(j % program.domainSizes[free[i]]);
        }
        values.clear();
        for (size_t i = 0; i < f; ++i)
            assignment[free[i]] = best[i];
        // Every op's choice given the later ones' is the whole assignment's given them, so a
        // runner-up within the tolerance at any op is another assignment that reaches the optimum.
        if (tied && second && flagsTie(program.semiring, runnerUp, bestValue))
            *tied = true;
    }
}

// Row `row` of table `id`: an input's from the program, a computed one's from `computed`.
auto completeRows(const TensorProgram &program, const std::vector<std::vector<double>> &computed) {
    return [&](uint32_t id, uint64_t row) {
        const Table &t = program.tables[id];
        return t.input ? inputTableValue(t, row) : computed[id][row];
    };
}

} // namespace

void recoverAssignment(const TensorProgram &program,
                       const std::vector<std::vector<double>> &computed,
                       std::vector<uint32_t> &assignment, const std::vector<uint8_t> *pinned,
                       bool *tied) {
    traceBack(program, completeRows(program, computed), assignment, pinned, tied);
}

void recoverLowestAssignment(const TensorProgram &program,
                             const std::vector<std::vector<double>> &computed,
                             std::vector<uint32_t> &assignment,
                             const std::vector<uint8_t> *pinned) {
    traceBack(program, completeRows(program, computed), assignment, pinned, nullptr,
              /*lowest=*/true);
}

void recoverAssignment(const TensorProgram &program, const RowValue &rowValue,
                       std::vector<uint32_t> &assignment, bool *tied) {
    traceBack(program, rowValue, assignment, nullptr, tied);
}

double programResult(const TensorProgram &program, const RowValue &value) {
    const SemiringOps ring{program.semiring};
    double v = ring.one();
    for (uint32_t r : program.results)
        v = ring.times(v, value(r, 0)); // result tables are scalars
    return v;
}

} // namespace zbddc
