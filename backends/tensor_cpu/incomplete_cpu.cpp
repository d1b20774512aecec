#include "backends/tensor_cpu/incomplete_cpu.h"

#include "backends/tensor_cpu/incomplete_ops.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <new>

namespace zbddc {

namespace {

using incomplete::KeyedRow;

// Where one variable's digit is read from a row index and where it lands in another index.
struct DigitMap {
    uint64_t stride, domain, target;
};

uint64_t remap(uint64_t row, const std::vector<DigitMap> &maps) {
    uint64_t out = 0;
    for (const DigitMap &m : maps)
        out += (row / m.stride) % m.domain * m.target;
    return out;
}

// The joined space of an op: its output scope, then its eliminated variables (fastest).
struct Space {
    std::vector<uint32_t> vars;
    std::vector<uint64_t> strides;
    std::vector<uint32_t> domains;
    int find(uint32_t v) const {
        const auto it = std::find(vars.begin(), vars.end(), v);
        return it == vars.end() ? -1 : static_cast<int>(it - vars.begin());
    }
};

// The feasible rows of a table as the executor holds it (rows null: complete, row i is i).
struct RowsView {
    const uint64_t *rows = nullptr;
    const double *values = nullptr;
    size_t size = 0;
    uint64_t row(size_t i) const { return rows ? rows[i] : i; }
};

RowsView viewOf(const TensorProgram &p, const std::vector<TableData> &computed, uint32_t id) {
    const Table &t = p.tables[id];
    if (t.input)
        return {t.sparse ? t.rows.data() : nullptr, t.values.data(), t.values.size()};
    const TableData &d = computed[id];
    return {d.sparse ? d.rows.data() : nullptr, d.values.data(), d.values.size()};
}

// Rows joined so far, as indices of the joined space (variables not yet bound have digit 0).
struct Joined {
    std::vector<uint64_t> rows;
    std::vector<double> values;
    std::vector<bool> bound; // per space variable
};

struct OpRunner {
    const TensorProgram &p;
    const std::vector<TableData> &computed;
    const IncompleteExecOptions &options;
    IncompleteOpStats stats;
    double bound = std::numeric_limits<double>::infinity();

    Status checkRows(uint64_t n, const char *what) {
        stats.peakJoinedRows = std::max(stats.peakJoinedRows, n);
        if (n > options.maxRows)
            return error(std::string("incomplete tables: ") + what + " of op " +
                         std::to_string(stats.op) + " needs " + std::to_string(n) +
                         " rows, beyond the limit of " + std::to_string(options.maxRows));
        return Ok{};
    }

    // The first table, mapped into the space.
    Joined start(uint32_t id, const Space &space) {
        const Table &t = p.tables[id];
        const std::vector<uint64_t> strides = tableStrides(t);
        std::vector<DigitMap> maps;
        Joined j;
        j.bound.assign(space.vars.size(), false);
        for (size_t i = 0; i < t.scope.size(); ++i) {
            const int s = space.find(t.scope[i]);
            if (s < 0)
                continue; // a fixed (sliced) variable: filtered by the caller
            maps.push_back({strides[i], t.domains[i], space.strides[s]});
            j.bound[s] = true;
        }
        const RowsView v = viewOf(p, computed, id);
        for (size_t i = 0; i < v.size; ++i)
            if (v.values[i] < bound) {
                j.rows.push_back(remap(v.row(i), maps));
                j.values.push_back(v.values[i]);
            }
        return j;
    }

    // One join step (seed 002 Algs. 3-4): sort table `id` by the variables it shares with `j`,
    // group it, count each joined row's feasible matches, prefix-sum, write.
    Status join(Joined &j, uint32_t id, const Space &space) {
        const Table &t = p.tables[id];
        const std::vector<uint64_t> strides = tableStrides(t);
        std::vector<DigitMap> tableKey, tablePart, joinedKey;
        uint64_t keySpace = 1;
        for (size_t i = t.scope.size(); i-- > 0;) {
            const int s = space.find(t.scope[i]);
            if (j.bound[s]) {
                tableKey.push_back({strides[i], t.domains[i], keySpace});
                joinedKey.push_back({space.strides[s], t.domains[i], keySpace});
                keySpace *= t.domains[i];
            } else {
                tablePart.push_back({strides[i], t.domains[i], space.strides[s]});
            }
        }
        const RowsView v = viewOf(p, computed, id);
        std::vector<KeyedRow> sorted;
        sorted.reserve(v.size);
        for (size_t i = 0; i < v.size; ++i)
            if (v.values[i] < bound)
                sorted.push_back({remap(v.row(i), tableKey), remap(v.row(i), tablePart),
                                  v.values[i]});
        incomplete::radixSortByKey(sorted, keySpace - 1);
        const incomplete::Groups groups = incomplete::groupSortedRows(sorted);
        // Cheapest first inside each group, so a row's feasible matches are a prefix.
        for (size_t g = 0; g + 1 < groups.offsets.size(); ++g)
            std::sort(sorted.begin() + groups.offsets[g], sorted.begin() + groups.offsets[g + 1],
                      [](const KeyedRow &a, const KeyedRow &b) { return a.value < b.value; });
        std::vector<int64_t> groupOf(j.rows.size());
        std::vector<uint64_t> counts(j.rows.size());
        for (size_t r = 0; r < j.rows.size(); ++r) {
            const int64_t g = groupOf[r] = groups.find(remap(j.rows[r], joinedKey));
            if (g < 0)
                continue;
            const auto first = sorted.begin() + groups.offsets[g];
            const auto last = sorted.begin() + groups.offsets[g + 1];
            const double room = bound - j.values[r]; // matches must cost less than this
            counts[r] = static_cast<uint64_t>(
                std::partition_point(first, last,
                                     [&](const KeyedRow &k) { return k.value < room; }) -
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
                next.values[o] = j.values[r] + sorted[m].value;
            }
        }
        next.bound = j.bound;
        for (const uint32_t v2 : t.scope)
            next.bound[space.find(v2)] = true;
        j = std::move(next);
        return Ok{};
    }

    // The inputs in join order: the smallest first, then those sharing most variables with what
    // is joined (a table within the bound variables only filters), then the smallest.
    std::vector<uint32_t> joinOrder(const TensorOp &op, const Space &space) {
        std::vector<uint32_t> left = op.inputs, order;
        std::vector<bool> bound(space.vars.size(), false);
        auto rows = [&](uint32_t id) { return viewOf(p, computed, id).size; };
        while (!left.empty()) {
            size_t best = 0;
            auto score = [&](uint32_t id) {
                size_t shared = 0, fresh = 0;
                for (uint32_t v : p.tables[id].scope)
                    (bound[space.find(v)] ? shared : fresh) += 1;
                return std::make_tuple(order.empty() ? 0 : fresh == 0 ? 1 : 0, shared,
                                       -static_cast<double>(rows(id)));
            };
            for (size_t i = 1; i < left.size(); ++i)
                if (score(left[i]) > score(left[best]))
                    best = i;
            order.push_back(left[best]);
            for (uint32_t v : p.tables[left[best]].scope)
                bound[space.find(v)] = true;
            left.erase(left.begin() + best);
        }
        return order;
    }

    Result<TableData> run(const TensorOp &op) {
        const Table &out = p.tables[op.output];
        bound = out.sparse ? out.defaultValue : std::numeric_limits<double>::infinity();
        stats.entries = static_cast<double>(out.entries());
        const bool eliminates =
            op.kind == TensorOpKind::Marginalize || op.kind == TensorOpKind::EliminateBucket;
        Space space;
        space.vars = out.scope;
        if (eliminates)
            space.vars.insert(space.vars.end(), op.vars.begin(), op.vars.end());
        double size = 1;
        for (uint32_t v : space.vars) {
            space.domains.push_back(p.domainSizes[v]);
            size *= p.domainSizes[v];
        }
        if (size >= 0x1p64)
            return error("incomplete tables: the joined space of op " + std::to_string(stats.op) +
                         " has more than 2^64 rows");
        space.strides.assign(space.vars.size(), 1);
        for (size_t i = space.vars.size(); i-- > 1;)
            space.strides[i - 1] = space.strides[i] * space.domains[i];
        uint64_t elimSize = 1;
        for (size_t i = out.scope.size(); i < space.vars.size(); ++i)
            elimSize *= space.domains[i];

        Joined j;
        if (op.kind == TensorOpKind::SliceEvidence) {
            // Keep the rows that carry the fixed values, re-indexed into the output scope.
            const Table &t = p.tables[op.inputs[0]];
            const std::vector<uint64_t> strides = tableStrides(t);
            std::vector<DigitMap> fixed;
            uint64_t want = 0;
            for (size_t i = 0; i < op.vars.size(); ++i) {
                const size_t at = std::find(t.scope.begin(), t.scope.end(), op.vars[i]) -
                                  t.scope.begin();
                fixed.push_back({strides[at], t.domains[at], strides[at]});
                want += op.values[i] * strides[at];
            }
            j = start(op.inputs[0], space);
            const RowsView v = viewOf(p, computed, op.inputs[0]);
            size_t kept = 0, next = 0;
            for (size_t i = 0; i < v.size; ++i) {
                if (!(v.values[i] < bound))
                    continue;
                if (remap(v.row(i), fixed) == want) {
                    j.rows[kept] = j.rows[next];
                    j.values[kept++] = j.values[next];
                }
                ++next;
            }
            j.rows.resize(kept);
            j.values.resize(kept);
        } else {
            const std::vector<uint32_t> order = joinOrder(op, space);
            j = start(order[0], space);
            if (Status s = checkRows(j.rows.size(), "a table"); !s)
                return s.error();
            for (size_t i = 1; i < order.size() && !j.rows.empty(); ++i)
                if (Status s = join(j, order[i], space); !s)
                    return s.error();
        }
        // ⊕ over the eliminated variables (seed 002 Alg. 5): sort by output row, group min.
        std::vector<KeyedRow> keyed(j.rows.size());
        for (size_t r = 0; r < j.rows.size(); ++r)
            keyed[r] = {j.rows[r] / elimSize, 0, j.values[r]};
        j = {};
        incomplete::radixSortByKey(keyed, static_cast<uint64_t>(stats.entries) - 1);
        TableData data;
        data.sparse = true;
        data.defaultValue = out.sparse ? out.defaultValue : SemiringOps{p.semiring}.zero();
        incomplete::segmentedMin(keyed, bound, data.rows, data.values);
        stats.outputRows = data.rows.size();
        if (static_cast<double>(data.rows.size()) >= options.completeAbove * stats.entries) {
            data.values = data.densify(out.entries());
            data.rows.clear();
            data.sparse = false;
        }
        return data;
    }
};

} // namespace

Result<std::vector<TableData>> runIncompleteTensorProgramCpu(const TensorProgram &program,
                                                             const IncompleteExecOptions &options) {
    if (Status s = program.verify(); !s)
        return s.error();
    if (program.semiring != Semiring::MinSum)
        return error("incomplete tables need a min-sum program");
    std::vector<TableData> computed(program.tables.size());
    try {
        for (uint32_t o = 0; o < program.ops.size(); ++o) {
            const auto t0 = std::chrono::steady_clock::now();
            OpRunner runner{program, computed, options, {}};
            runner.stats.op = o;
            const TensorOp &op = program.ops[o];
            Result<TableData> data = runner.run(op);
            if (!data)
                return data.error();
            computed[op.output] = std::move(*data);
            runner.stats.ms = std::chrono::duration<double, std::milli>(
                                  std::chrono::steady_clock::now() - t0)
                                  .count();
            if (options.stats)
                options.stats->push_back(runner.stats);
        }
    } catch (const std::bad_alloc &) {
        return error("out of host memory while running the incomplete tables");
    }
    return computed;
}

} // namespace zbddc
