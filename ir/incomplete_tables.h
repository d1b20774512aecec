// Incomplete (sparse) tables of a TensorProgram (Bistaffa et al. 2017 §IV). In a MinSum program
// with an upper bound `top` (a WCSP's hard cost), a row whose cost reaches top is infeasible; an
// incomplete table stores only its feasible rows, and every absent row reads as its default, top.
// Because every cost is non-negative, a sum that involves an infeasible row is infeasible too, so
// dropping those rows changes no feasible value and BE stays exact (below top, every value is the
// exact integer).
//
// Semantics of a computed table marked sparse (Table::sparse on a non-input table): its rows are
// the op's values that are ⊕-better than Table::defaultValue; every other row reads as the default.
// The reference interpreter applies exactly this (values capped at the default), so it is the
// oracle for every executor of incomplete tables.
#pragma once

#include "ir/tensor_program.h"

#include <functional>
#include <vector>

namespace zbddc {

// A table's data as an executor returns it: complete (every row) or incomplete (ascending rows,
// their values, and the default of every other row).
struct TableData {
    bool sparse = false;
    std::vector<double> values;
    std::vector<uint64_t> rows;
    double defaultValue = 0;

    double at(uint64_t row) const;
    // The complete values (for tests and small tables).
    std::vector<double> densify(uint64_t entries) const;
};

// Marks every table of a MinSum program incomplete with default `top`: computed tables drop their
// rows at or above top; input tables keep only their rows below top (converted here, so their
// data is exactly the feasible rows). Fails for other semirings, and for an input table with more
// than `maxRows` feasible rows (a default cost below top makes every absent row feasible).
inline constexpr uint64_t kIncompleteMaxRows = uint64_t{1} << 25; // the executors' default too
Status markIncomplete(TensorProgram &program, double top, uint64_t maxRows = kIncompleteMaxRows);

// Reads row `row` of table `id` (input data, or the executor's computed data).
using TableReader = RowValue;
TableReader tableReader(const TensorProgram &program, const std::vector<TableData> &computed);

// programResult over TableData.
double programResultOf(const TensorProgram &program, const std::vector<TableData> &computed);

// The VALUE phase over TableData: recoverAssignment (tensor_program.h) reading through `computed`.
void recoverAssignmentOf(const TensorProgram &program, const std::vector<TableData> &computed,
                         std::vector<uint32_t> &assignment);

} // namespace zbddc
