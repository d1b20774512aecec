// The plan of one op over incomplete tables, shared by the CPU and GPU executors: the joined space
// (the output scope, then the eliminated variables, fastest), the join order, and for each step the
// digit maps that turn a row index into a key over the shared variables or into its place in the
// joined space (Bistaffa et al. 2017 §IV: sort by the shared variables, then join group by group).
#pragma once

#include "ir/incomplete_tables.h"
#include "ir/tensor_program.h"

#include <functional>
#include <vector>

namespace zbddc::incomplete {

// One variable: its digit read from a row index (stride, domain) and placed at `target` (layout
// shared with the CUDA kernels' DigitMap).
struct DigitMap {
    uint64_t stride, domain, target;
};
uint64_t remap(uint64_t row, const std::vector<DigitMap> &maps);

// The feasible rows of a table as an executor holds it: an input's in the program, a computed
// one's in `computed` (rows null: complete, row i is i).
struct TableRows {
    const uint64_t *rows = nullptr;
    const double *values = nullptr;
    size_t size = 0;
    uint64_t row(size_t i) const { return rows ? rows[i] : i; }
};
TableRows rowsOf(const TensorProgram &program, const std::vector<TableData> &computed, uint32_t id);

struct JoinStep {
    uint32_t table = 0;
    std::vector<DigitMap> tableKey;  // the table's row -> key over the shared variables
    std::vector<DigitMap> tablePart; // the table's row -> its other variables in the joined space
    std::vector<DigitMap> joinedKey; // a joined row -> the same key
    uint64_t keySpace = 1;
};

struct OpPlan {
    double bound = 0;               // rows at or above it are dropped
    uint64_t outEntries = 0;        // rows of the complete output
    uint64_t elimSize = 1;          // joint values of the eliminated variables
    uint32_t first = 0;             // the table the join starts from
    std::vector<DigitMap> firstMap; // its rows -> the joined space
    std::vector<JoinStep> steps;
    // SliceEvidence: a row of `first` is kept when remap(row, fixed) == fixedValue.
    std::vector<DigitMap> fixed;
    uint64_t fixedValue = 0;
};

// `rows(id)`: how many rows table id holds now (the join order starts from the smallest, then
// takes the inputs sharing most variables with what is joined). Fails when the joined space has
// 2^64 rows or more.
Result<OpPlan> planOp(const TensorProgram &program, const TensorOp &op,
                      const std::function<uint64_t(uint32_t)> &rows);

} // namespace zbddc::incomplete
