#include "backends/tensor/cuda/run/incomplete_run.h"

#include "backends/tensor/cpu/incomplete_plan.h"
#include "backends/tensor/cuda/codegen/incomplete_kernels.h"
#include "ir/try.h"

#include <algorithm>
#include <bit>
#include <initializer_list>

namespace zbddc::incomplete {

namespace {

using cuda::kIncompleteBlock;
using cuda::kIncompleteRun;
using cuda::kIncompleteScanTile;
using u64 = unsigned long long;
using DevicePtr = TensorDevice::Address;

// Device memory, kept while the buffer is.
struct DeviceBuffer {
    TensorDevice::Bytes bytes;
    DevicePtr ptr() const { return bytes.address; }
};

// Rows with their costs on the device: keys (sort keys or joined-space rows), payloads, values.
struct DeviceRows {
    DeviceBuffer keys, payload, values;
    uint64_t size = 0;
};

class Runner {
  public:
    explicit Runner(TensorDevice &d) : d_(d) {}

    // Each of `into` a buffer of `count` entries of `bytes` (at least one entry).
    Status alloc(uint64_t count, std::initializer_list<DeviceBuffer *> into, size_t bytes = 8) {
        for (DeviceBuffer *b : into) {
            auto got = d_.allocateBytes(std::max<uint64_t>(count, 1) * bytes);
            if (!got)
                return got.error();
            b->bytes = std::move(*got);
        }
        return Ok{};
    }
    template <class T> Status upload(DeviceBuffer &into, const T *data, uint64_t count) {
        ZBDDC_TRY(alloc(count, {&into}, sizeof(T)));
        return count ? d_.writeBytes(into.ptr(), data, count * sizeof(T)) : Status(Ok{});
    }
    Status upload(DeviceBuffer &into, const std::vector<DigitMap> &maps) {
        return upload(into, maps.data(), maps.size());
    }

    Status launch(const char *name, uint64_t threads, std::vector<void *> args,
                  bool gridStride = true) {
        const uint64_t want = (threads + kIncompleteBlock - 1) / kIncompleteBlock;
        const uint64_t cap = gridStride ? d_.maxGrid() : uint64_t{0x7fffffff};
        const unsigned grid = static_cast<unsigned>(std::clamp<uint64_t>(want, 1, cap));
        return d_.launchKernel(name, grid, kIncompleteBlock, args.data());
    }

    Status get(void *dst, DevicePtr src, size_t bytes) {
        return bytes ? d_.readBytes(dst, src, bytes) : Status(Ok{});
    }
    Status put(DevicePtr p, u64 value) { return d_.writeBytes(p, &value, sizeof value); }

    Result<u64> read(DevicePtr p, uint64_t index) {
        u64 v = 0;
        ZBDDC_TRY(d_.readBytes(&v, p + index * sizeof(u64), sizeof v));
        return v;
    }

    // Exclusive scan of n u64 from `in` into `out`; returns the total.
    Result<u64> scan(DevicePtr in, DevicePtr out, u64 n) {
        if (n == 0)
            return u64{0};
        const u64 tiles = (n + kIncompleteScanTile - 1) / kIncompleteScanTile;
        DeviceBuffer sums, offsets;
        ZBDDC_TRY(alloc(tiles, {&sums}));
        DevicePtr sp = sums.ptr();
        ZBDDC_TRY(launch("zb_scan_tiles", tiles * kIncompleteBlock, {&in, &out, &n, &sp}, false));
        if (tiles > 1) {
            ZBDDC_TRY(alloc(tiles, {&offsets}));
            auto inner = scan(sp, offsets.ptr(), tiles);
            if (!inner)
                return inner.error();
            DevicePtr op = offsets.ptr();
            ZBDDC_TRY(launch("zb_scan_add", n, {&out, &n, &op}));
        }
        auto last = read(out, n - 1), lastIn = read(in, n - 1);
        if (!last)
            return last.error();
        if (!lastIn)
            return lastIn.error();
        return *last + *lastIn;
    }

    // Stable LSD radix sort of `rows` by key, 4 bits a pass, up to the bits of maxKey.
    Status sort(DeviceRows &rows, u64 maxKey) {
        const unsigned bits = static_cast<unsigned>(std::bit_width(maxKey));
        u64 n = rows.size;
        if (bits == 0 || n < 2)
            return Ok{};
        DeviceRows other;
        ZBDDC_TRY(alloc(n, {&other.keys, &other.payload, &other.values}));
        const u64 runs = (n + kIncompleteRun - 1) / kIncompleteRun;
        DeviceBuffer counts, offsets;
        ZBDDC_TRY(alloc(16 * runs, {&counts, &offsets}));
        DevicePtr cp = counts.ptr(), opp = offsets.ptr();
        for (unsigned shift = 0; shift < bits; shift += 4) {
            DevicePtr k = rows.keys.ptr(), p = rows.payload.ptr(), v = rows.values.ptr();
            DevicePtr k2 = other.keys.ptr(), p2 = other.payload.ptr(), v2 = other.values.ptr();
            u64 r = runs;
            unsigned sh = shift;
            ZBDDC_TRY(launch("zb_radix_count", runs, {&k, &n, &sh, &cp, &r}, false));
            if (auto t = scan(cp, opp, 16 * runs); !t)
                return t.error();
            ZBDDC_TRY(launch("zb_radix_scatter", runs,
                             {&k, &p, &v, &n, &sh, &opp, &r, &k2, &p2, &v2}, false));
            std::swap(rows.keys, other.keys);
            std::swap(rows.payload, other.payload);
            std::swap(rows.values, other.values);
        }
        return Ok{};
    }

    // Sorts `rows` by key (keys up to maxKey), then the head positions of the runs of equal keys
    // (exclusive scan of the head flags) and their count.
    Result<u64> sortIntoRuns(DeviceRows &rows, u64 maxKey, DeviceBuffer &positions) {
        ZBDDC_TRY(sort(rows, maxKey));
        u64 n = rows.size;
        DeviceBuffer flags;
        ZBDDC_TRY(alloc(n, {&flags, &positions}));
        DevicePtr k = rows.keys.ptr(), f = flags.ptr();
        ZBDDC_TRY(launch("zb_heads", n, {&k, &n, &f}));
        return scan(f, positions.ptr(), n);
    }

  private:
    TensorDevice &d_;
};

struct HostView {
    const uint64_t *rows = nullptr; // null: complete
    const double *values = nullptr;
    uint64_t size = 0;
};

HostView viewOf(const TensorProgram &p, const std::vector<TableData> &computed, uint32_t id) {
    const Table &t = p.tables[id];
    if (t.input)
        return {t.sparse ? t.rows.data() : nullptr, t.values.data(), t.values.size()};
    const TableData &d = computed[id];
    return {d.sparse ? d.rows.data() : nullptr, d.values.data(), d.values.size()};
}

} // namespace

std::vector<DeviceStep> incompleteSteps(const TensorProgram &program,
                                        const DeviceRunOptions &options) {
    std::vector<DeviceStep> steps;
    for (uint32_t o = 0; o < program.ops.size(); ++o) {
        steps.push_back(makeStep(StepKind::Incomplete, StepClock::Compute));
        steps.back().ops = {o};
        steps.back().joinLimit = options.maxRows;
    }
    return steps;
}

Result<TableData> runIncompleteOp(TensorDevice &device, const TensorProgram &p, uint32_t o,
                                  const std::vector<TableData> &computed, uint64_t maxRows) {
    Runner r(device);
    const TensorOp &op = p.ops[o];
    auto planned = planOp(p, op, [&](uint32_t id) { return viewOf(p, computed, id).size; });
    if (!planned)
        return planned.error();
    const OpPlan &plan = *planned;
    // The kernels that read costs, and the bound they take, for the program's cost type.
    const bool int64Costs = p.semiring == Semiring::MinSumInt64;
    double bound = plan.bound;
    long long boundCost = int64Costs ? wordInt64(plan.bound) : 0;
    void *boundArg = int64Costs ? static_cast<void *>(&boundCost) : static_cast<void *>(&bound);
    const char *joinCount = int64Costs ? "zb_join_count_i64" : "zb_join_count";
    const char *joinWrite = int64Costs ? "zb_join_write_i64" : "zb_join_write";
    const char *segmentMin = int64Costs ? "zb_segment_min_i64" : "zb_segment_min";
    const SemiringOps ring{p.semiring};
    // The first table, filtered (slices) and mapped into the joined space on the host.
    std::vector<uint64_t> startRows;
    std::vector<double> startValues;
    const HostView first = viewOf(p, computed, plan.first);
    for (uint64_t i = 0; i < first.size; ++i) {
        const uint64_t row = first.rows ? first.rows[i] : i;
        if (ring.better(first.values[i], bound) && remap(row, plan.fixed) == plan.fixedValue) {
            startRows.push_back(remap(row, plan.firstMap));
            startValues.push_back(first.values[i]);
        }
    }
    DeviceRows j;
    j.size = startRows.size();
    ZBDDC_TRY(r.upload(j.keys, startRows.data(), j.size));
    ZBDDC_TRY(r.upload(j.values, startValues.data(), j.size));
    for (const JoinStep &step : plan.steps) {
        if (j.size == 0)
            break;
        const HostView t = viewOf(p, computed, step.table);
        // Bistaffa et al. 2017 Alg. 3: key the table by its shared variables, sort, group.
        DeviceRows table;
        table.size = t.size;
        u64 n = t.size;
        DeviceBuffer rows, values, keyMap, partMap, jKeyMap;
        if (t.rows)
            ZBDDC_TRY(r.upload(rows, t.rows, n));
        ZBDDC_TRY(r.upload(values, t.values, n));
        ZBDDC_TRY(r.upload(keyMap, step.tableKey));
        ZBDDC_TRY(r.upload(partMap, step.tablePart));
        ZBDDC_TRY(r.upload(jKeyMap, step.joinedKey));
        ZBDDC_TRY(r.alloc(n, {&table.keys, &table.payload, &table.values}));
        DevicePtr rp = rows.ptr(), vp = values.ptr(), km = keyMap.ptr(), pm = partMap.ptr(),
                  tk = table.keys.ptr(), tp = table.payload.ptr(), tv = table.values.ptr();
        unsigned nk = static_cast<unsigned>(step.tableKey.size()),
                 np = static_cast<unsigned>(step.tablePart.size());
        ZBDDC_TRY(r.launch("zb_inc_keys", n, {&rp, &vp, &n, &km, &nk, &pm, &np, &tk, &tp, &tv}));
        DeviceBuffer headPos;
        auto groups = r.sortIntoRuns(table, step.keySpace - 1, headPos);
        if (!groups)
            return groups.error();
        u64 g = *groups;
        DeviceBuffer groupKeys, groupStart;
        ZBDDC_TRY(r.alloc(g, {&groupKeys}));
        ZBDDC_TRY(r.alloc(g + 1, {&groupStart}));
        tk = table.keys.ptr();
        tp = table.payload.ptr();
        tv = table.values.ptr();
        DevicePtr hp = headPos.ptr(), gk = groupKeys.ptr(), gs = groupStart.ptr();
        ZBDDC_TRY(r.launch("zb_groups", n, {&tk, &n, &hp, &gk, &gs}));
        // groupStart[g] = n closes the last group.
        ZBDDC_TRY(r.put(gs + g * sizeof(u64), n));
        // Bistaffa et al. 2017 Alg. 4: count, scan, write.
        u64 jn = j.size;
        DeviceBuffer counts, offsets;
        ZBDDC_TRY(r.alloc(jn, {&counts, &offsets}));
        DevicePtr jr = j.keys.ptr(), jv = j.values.ptr(), jk = jKeyMap.ptr(), cp = counts.ptr(),
                  op2 = offsets.ptr();
        unsigned njk = static_cast<unsigned>(step.joinedKey.size());
        ZBDDC_TRY(
            r.launch(joinCount, jn, {&jr, &jv, &jn, &jk, &njk, &gk, &gs, &g, &tv, boundArg, &cp}));
        auto total = r.scan(cp, op2, jn);
        if (!total)
            return total.error();
        if (*total > maxRows)
            return error("incomplete tables on the GPU: a join needs " + std::to_string(*total) +
                         " rows, beyond the limit of " + std::to_string(maxRows));
        DeviceRows next;
        next.size = *total;
        ZBDDC_TRY(r.alloc(next.size, {&next.keys, &next.values}));
        DevicePtr ok = next.keys.ptr(), ov = next.values.ptr();
        ZBDDC_TRY(
            r.launch(joinWrite, jn,
                     {&jr, &jv, &jn, &jk, &njk, &gk, &gs, &g, &tp, &tv, boundArg, &op2, &ok, &ov}));
        j = std::move(next);
    }
    // Bistaffa et al. 2017 Alg. 5: output keys, sort, segmented min.
    TableData data;
    data.sparse = true;
    data.defaultValue = p.tables[op.output].sparse ? p.tables[op.output].defaultValue
                                                   : SemiringOps{p.semiring}.zero();
    u64 n = j.size;
    if (n == 0)
        return data;
    {
        DeviceBuffer keys;
        ZBDDC_TRY(r.alloc(n, {&keys}));
        DevicePtr rows = j.keys.ptr(), k = keys.ptr();
        u64 elim = plan.elimSize;
        ZBDDC_TRY(r.launch("zb_output_keys", n, {&rows, &n, &elim, &k}));
        j.payload = std::move(j.keys);
        j.keys = std::move(keys);
    }
    DeviceBuffer headPos;
    auto outRows = r.sortIntoRuns(j, plan.outEntries - 1, headPos);
    if (!outRows)
        return outRows.error();
    DeviceBuffer rowsOut, valuesOut;
    ZBDDC_TRY(r.alloc(*outRows, {&rowsOut, &valuesOut}));
    DevicePtr k = j.keys.ptr(), v = j.values.ptr(), hp = headPos.ptr(), ro = rowsOut.ptr(),
              vo = valuesOut.ptr();
    ZBDDC_TRY(r.launch(segmentMin, n, {&k, &v, &n, &hp, &ro, &vo}));
    data.rows.resize(*outRows);
    data.values.resize(*outRows);
    ZBDDC_TRY(r.get(data.rows.data(), ro, *outRows * sizeof(u64)));
    ZBDDC_TRY(r.get(data.values.data(), vo, *outRows * sizeof(double)));
    return data;
}

Result<std::vector<TableData>> runIncompleteOnDevice(TensorDevice &device,
                                                     const TensorProgram &program,
                                                     const DeviceRunOptions &options) {
    ZBDDC_TRY(program.verify());
    if (program.semiring != Semiring::MinSum && program.semiring != Semiring::MinSumInt64)
        return error("incomplete tables need a min-sum program");
    TensorDevice *const devices[] = {&device};
    std::vector<TableData> computed;
    StepTargets targets;
    targets.devices = devices;
    targets.incomplete = &computed;
    StepTimes times{};
    if (auto ran = runDeviceSteps(program, incompleteSteps(program, options), targets, times); !ran)
        return ran.error();
    computed.resize(program.tables.size()); // a program of no op
    return computed;
}

} // namespace zbddc::incomplete
