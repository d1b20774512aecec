// The CPU executor of a TensorProgram over incomplete tables (Bistaffa et al. 2017 §IV; semantics
// in ir/incomplete_tables.h). A bucket joins its input tables one at a time in the joined space
// (the output scope, then the eliminated variables, so that they vary fastest): each step sorts the
// next table by the variables it shares with the rows joined so far, groups them, counts every
// row's feasible matches, prefix-sums the counts into offsets and writes the joined rows; rows
// reaching the bound are never written. Elimination then sorts the joined rows by output row and
// takes each group's min. Memory follows the feasible rows, not the complete tables.
#pragma once

#include "ir/incomplete_tables.h"

#include <vector>

namespace zbddc {

struct IncompleteOpStats {
    uint32_t op = 0;
    double entries = 0;         // rows of the complete output table
    uint64_t outputRows = 0;    // feasible rows of the output
    uint64_t peakJoinedRows = 0; // most rows of one intermediate join inside the op
    double ms = 0;
};

struct IncompleteExecOptions {
    // Refuse (with a message) rather than hold more rows than this in one join (about 64 bytes
    // a row at the peak, while sorting).
    uint64_t maxRows = kIncompleteMaxRows;
    // An output whose feasible rows are at least this share of its complete table is stored
    // complete (TableData::sparse false): the density decision per op.
    double completeAbove = 0.5;
    std::vector<IncompleteOpStats> *stats = nullptr; // filled per op when set
};

// The data of every computed table (index = table id; input tables stay empty). The program must
// be min-sum; each op's bound is its output table's default when that table is sparse.
Result<std::vector<TableData>> runIncompleteTensorProgramCpu(const TensorProgram &program,
                                                             const IncompleteExecOptions &options = {});

} // namespace zbddc
