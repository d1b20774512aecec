#include "backends/tensor/cpu/incomplete_cpu.h"

#include "backends/tensor/cpu/incomplete_ops.h"
#include "backends/tensor/cpu/incomplete_plan.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <new>

namespace zbddc {

namespace {

using incomplete::KeyedRow;
using incomplete::remap;
using incomplete::rowsOf;
using incomplete::TableRows;

// Rows joined so far, as indices of the joined space (variables not yet bound have digit 0).
struct Joined {
    std::vector<uint64_t> rows;
    std::vector<double> values;
};

// Runs one op with costs of type V (EntryWord).
template <class V> struct OpRunner {
    using C = EntryWord<V>;
    const TensorProgram &p;
    const std::vector<TableData> &computed;
    const IncompleteExecOptions &options;
    IncompleteOpStats stats;
    incomplete::OpPlan plan = {};

    Status checkRows(uint64_t n, const char *what) {
        stats.peakJoinedRows = std::max(stats.peakJoinedRows, n);
        if (n > options.maxRows)
            return error(std::string("incomplete tables: ") + what + " of op " +
                         std::to_string(stats.op) + " needs " + std::to_string(n) +
                         " rows, beyond the limit of " + std::to_string(options.maxRows));
        return Ok{};
    }

    // The first table's feasible rows (those carrying the fixed values, for a slice), mapped into
    // the joined space.
    Joined start() {
        const TableRows v = rowsOf(p, computed, plan.first);
        Joined j;
        for (size_t i = 0; i < v.size; ++i)
            if (C::load(v.values[i]) < C::load(plan.bound) &&
                remap(v.row(i), plan.fixed) == plan.fixedValue) {
                j.rows.push_back(remap(v.row(i), plan.firstMap));
                j.values.push_back(v.values[i]);
            }
        return j;
    }

    // One join step (Bistaffa et al. 2017 Algs. 3-4): sort the table by the variables it shares
    // with `j`, group it, count each joined row's feasible matches, prefix-sum, write.
    Status join(Joined &j, const incomplete::JoinStep &step) {
        const TableRows v = rowsOf(p, computed, step.table);
        std::vector<KeyedRow> sorted;
        sorted.reserve(v.size);
        const V bound = C::load(plan.bound);
        for (size_t i = 0; i < v.size; ++i)
            if (C::load(v.values[i]) < bound)
                sorted.push_back({remap(v.row(i), step.tableKey), remap(v.row(i), step.tablePart),
                                  v.values[i]});
        incomplete::radixSortByKey(sorted, step.keySpace - 1);
        const incomplete::Groups groups = incomplete::groupSortedRows(sorted);
        // Cheapest first inside each group, so a row's feasible matches are a prefix.
        for (size_t g = 0; g + 1 < groups.offsets.size(); ++g)
            std::sort(sorted.begin() + groups.offsets[g], sorted.begin() + groups.offsets[g + 1],
                      [](const KeyedRow &a, const KeyedRow &b) {
                          return C::load(a.value) < C::load(b.value);
                      });
        std::vector<int64_t> groupOf(j.rows.size());
        std::vector<uint64_t> counts(j.rows.size());
        for (size_t r = 0; r < j.rows.size(); ++r) {
            const int64_t g = groupOf[r] = groups.find(remap(j.rows[r], step.joinedKey));
            if (g < 0)
                continue;
            const auto first = sorted.begin() + groups.offsets[g];
            const auto last = sorted.begin() + groups.offsets[g + 1];
            const V room = bound - C::load(j.values[r]); // matches must cost less than this
            counts[r] = static_cast<uint64_t>(
                std::partition_point(first, last,
                                     [&](const KeyedRow &k) { return C::load(k.value) < room; }) -
                first);
        }
        const uint64_t total = incomplete::exclusiveScan(counts);
        if (Status s = checkRows(total, "a join"); !s)
            return s;
        Joined next;
        next.rows.resize(total);
        next.values.resize(total);
        for (size_t r = 0; r < j.rows.size(); ++r) {
            const uint64_t end = r + 1 < counts.size() ? counts[r + 1] : total;
            for (uint64_t o = counts[r], m = groups.offsets[std::max<int64_t>(groupOf[r], 0)];
                 o < end; ++o, ++m) {
                next.rows[o] = j.rows[r] + sorted[m].payload;
                next.values[o] = C::store(C::load(j.values[r]) + C::load(sorted[m].value));
            }
        }
        j = std::move(next);
        return Ok{};
    }

    Result<TableData> run(const TensorOp &op) {
        const Table &out = p.tables[op.output];
        auto planned =
            incomplete::planOp(p, op, [&](uint32_t id) { return rowsOf(p, computed, id).size; });
        if (!planned)
            return planned.error();
        plan = std::move(*planned);
        stats.entries = static_cast<double>(plan.outEntries);
        Joined j = start();
        if (Status s = checkRows(j.rows.size(), "a table"); !s)
            return s.error();
        for (size_t i = 0; i < plan.steps.size() && !j.rows.empty(); ++i)
            if (Status s = join(j, plan.steps[i]); !s)
                return s.error();
        // ⊕ over the eliminated variables (Bistaffa et al. 2017 Alg. 5): sort by output, group min.
        std::vector<KeyedRow> keyed(j.rows.size());
        for (size_t r = 0; r < j.rows.size(); ++r)
            keyed[r] = {j.rows[r] / plan.elimSize, 0, j.values[r]};
        j = {};
        incomplete::radixSortByKey(keyed, plan.outEntries - 1);
        TableData data;
        data.sparse = true;
        data.defaultValue = out.sparse ? out.defaultValue : SemiringOps{p.semiring}.zero();
        incomplete::segmentedMin<V>(keyed, plan.bound, data.rows, data.values);
        stats.outputRows = data.rows.size();
        if (static_cast<double>(data.rows.size()) >= options.completeAbove * stats.entries) {
            data.values = data.densify(out.entries());
            data.rows.clear();
            data.sparse = false;
        }
        return data;
    }
};

template <class V>
Result<TableData> runOp(const TensorProgram &program, const std::vector<TableData> &computed,
                        const IncompleteExecOptions &options, const TensorOp &op,
                        IncompleteOpStats &stats) {
    OpRunner<V> runner{program, computed, options, stats};
    Result<TableData> data = runner.run(op);
    stats = runner.stats;
    return data;
}

} // namespace

Result<std::vector<TableData>> runIncompleteTensorProgramCpu(const TensorProgram &program,
                                                             const IncompleteExecOptions &options) {
    if (Status s = program.verify(); !s)
        return s.error();
    const bool int64Costs = program.semiring == Semiring::MinSumInt64;
    if (program.semiring != Semiring::MinSum && !int64Costs)
        return error("incomplete tables need a min-sum program");
    std::vector<TableData> computed(program.tables.size());
    try {
        for (uint32_t o = 0; o < program.ops.size(); ++o) {
            const auto t0 = std::chrono::steady_clock::now();
            IncompleteOpStats stats;
            stats.op = o;
            const TensorOp &op = program.ops[o];
            Result<TableData> data =
                int64Costs ? runOp<int64_t>(program, computed, options, op, stats)
                           : runOp<double>(program, computed, options, op, stats);
            if (!data)
                return data.error();
            computed[op.output] = std::move(*data);
            stats.ms = std::chrono::duration<double, std::milli>(
                           std::chrono::steady_clock::now() - t0)
                           .count();
            if (options.stats)
                options.stats->push_back(stats);
        }
    } catch (const std::bad_alloc &) {
        return error("out of host memory while running the incomplete tables");
    }
    return computed;
}

} // namespace zbddc
