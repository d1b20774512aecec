#include "ir/incomplete_tables.h"
#include "ir/sparse_rows.h"

#include <algorithm>

namespace zbddc {

double TableData::at(uint64_t row) const {
    return sparse ? valueAtListedRow(rows, values, defaultValue, row) : values[row];
}

std::vector<double> TableData::densify(uint64_t entries) const {
    if (!sparse)
        return values;
    std::vector<double> out(entries, defaultValue);
    for (size_t i = 0; i < rows.size(); ++i)
        out[rows[i]] = values[i];
    return out;
}

Status markIncomplete(TensorProgram &program, double top, uint64_t maxRows) {
    if (program.semiring != Semiring::MinSum && program.semiring != Semiring::MinSumInt64)
        return error("incomplete tables need a min-sum program (costs with an upper bound)");
    const SemiringOps ring{program.semiring};
    auto feasible = [&](double v) { return ring.better(v, top); }; // below the bound
    for (size_t id = 0; id < program.tables.size(); ++id) {
        Table &t = program.tables[id];
        if (t.input) {
            // At least the absent rows are feasible; counted before anything is allocated.
            if (t.sparse && feasible(t.defaultValue) && t.entries() - t.rows.size() > maxRows)
                return error("incomplete tables: input table " + std::to_string(id) + " has " +
                             std::to_string(t.entries() - t.rows.size()) +
                             " feasible rows (its default cost is below the upper bound), beyond "
                             "the limit of " +
                             std::to_string(maxRows));
            std::vector<uint64_t> rows;
            std::vector<double> values;
            const uint64_t n = t.sparse ? t.rows.size() : t.entries();
            if (t.sparse && feasible(t.defaultValue)) {
                // Absent rows are feasible: enumerate the whole table.
                for (uint64_t r = 0; r < t.entries(); ++r)
                    if (const double v = inputTableValue(t, r); feasible(v)) {
                        rows.push_back(r);
                        values.push_back(v);
                    }
            } else {
                for (uint64_t i = 0; i < n; ++i)
                    if (feasible(t.values[i])) {
                        rows.push_back(t.sparse ? t.rows[i] : i);
                        values.push_back(t.values[i]);
                    }
            }
            t.rows = std::move(rows);
            t.values = std::move(values);
        }
        t.sparse = true;
        t.defaultValue = top;
    }
    return Ok{};
}

TableReader tableReader(const TensorProgram &program, const std::vector<TableData> &computed) {
    return [&program, &computed](uint32_t id, uint64_t row) {
        const Table &t = program.tables[id];
        return t.input ? inputTableValue(t, row) : computed[id].at(row);
    };
}

double programResultOf(const TensorProgram &program, const std::vector<TableData> &computed) {
    return programResult(program, tableReader(program, computed));
}

void recoverAssignmentOf(const TensorProgram &program, const std::vector<TableData> &computed,
                         std::vector<uint32_t> &assignment) {
    recoverAssignment(program, tableReader(program, computed), assignment);
}

} // namespace zbddc
