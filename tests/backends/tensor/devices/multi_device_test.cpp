// Bucket elimination over several devices without a GPU: the plan's placement and slicing checked
// against the program, and the run driven over stand-in devices that hold only the rows the plan
// gives them — every other row is poison that would show in the result — equal to the reference
// interpreter table by table for 1 to 4 devices, sliced or not.
#include "backends/tensor/cpu/tensor_cpu.h"
#include "backends/tensor/cuda/plan/value_phase_plan.h"
#include "backends/tensor/devices/chunk_layout.h"
#include "backends/tensor/devices/host_device_split.h"
#include "backends/tensor/devices/multi_device_run.h"
#include "backends/tensor/devices/slice_layout.h"
#include "ir/tensor_interpret.h"
#include "runtime/tensor/tensor_executor.h"

#include "tests/backends/tensor/devices/emulated_tensor_device.h"
#include "tests/catch.hpp"
#include "tests/support/random_programs.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>

using namespace zbddc;
using zbddc::testing::EmulatedTensorDevice;
using zbddc::testing::randomBucketProgram;
using zbddc::testing::randomWideEliminationProgram;
using zbddc::testing::scrambleLayouts;

namespace {

// Rows between emulated devices, counted.
class StandInFabric final : public DeviceFabric {
  public:
    explicit StandInFabric(std::vector<std::unique_ptr<EmulatedTensorDevice>> &devices)
        : devices_(devices) {}
    Status copy(std::span<const TableMove> moves) override {
        for (const TableMove &m : moves) {
            if (m.from < 0 || m.to < 0 || m.from == m.to)
                return error("a device move with a host end or to itself");
            EmulatedTensorDevice &from = *devices_[static_cast<size_t>(m.from)];
            std::vector<double> rows(m.rows.rows);
            if (Status s = from.download(m.table, m.rows.first, rows); !s)
                return s;
            if (Status s = devices_[static_cast<size_t>(m.to)]->upload(m.table, m.rows.first, rows);
                !s)
                return s;
            moved += m.rows.rows;
        }
        return Ok{};
    }
    std::vector<std::unique_ptr<EmulatedTensorDevice>> &devices_;
    uint64_t moved = 0;
};

// Fresh stand-ins for `n` devices and the fabric between them.
struct StandIns {
    StandIns(const TensorProgram &p, uint32_t n) : fabric(devices) {
        for (uint32_t d = 0; d < n; ++d) {
            devices.push_back(std::make_unique<EmulatedTensorDevice>(p));
            ptrs.push_back(devices.back().get());
        }
    }
    std::vector<std::unique_ptr<EmulatedTensorDevice>> devices;
    std::vector<TensorDevice *> ptrs;
    StandInFabric fabric;

    // The plan's steps (one way or the other) run on these devices.
    Result<std::vector<std::vector<double>>> run(const TensorProgram &p,
                                                 const MultiDevicePlan &plan, bool ordered) {
        StepTargets targets;
        targets.devices = ptrs;
        targets.fabric = &fabric;
        StepTimes times{};
        return runDeviceSteps(p, multiDeviceSteps(plan, ordered), targets, times);
    }
};

bool sameTables(const std::vector<std::vector<double>> &a,
                const std::vector<std::vector<double>> &b) {
    if (a.size() != b.size())
        return false;
    for (size_t t = 0; t < a.size(); ++t) {
        if (a[t].size() != b[t].size())
            return false;
        for (size_t i = 0; i < a[t].size(); ++i)
            if (!(a[t][i] == b[t][i] ||
                  std::fabs(a[t][i] - b[t][i]) <= 1e-12 * std::fabs(b[t][i]) ||
                  (std::isnan(a[t][i]) && std::isnan(b[t][i])))) // inf * 0 in the oracle too
                return false;
    }
    return true;
}

// Each op's tasks cover its output rows exactly once, and so do the downloads of every computed
// table; a whole op runs on one device; every table a device reserves it releases once.
void checkTasks(const TensorProgram &p, const MultiDevicePlan &plan, uint64_t threshold) {
    std::vector<uint64_t> covered(p.ops.size(), 0), downloaded(p.tables.size(), 0);
    std::vector<std::set<uint32_t>> devicesOf(p.ops.size());
    std::set<std::pair<uint32_t, uint32_t>> reserved, released;
    for (const MultiDeviceLevel &level : plan.levels) {
        for (const DeviceTask &t : level.tasks) {
            covered[t.op] += t.out.rows;
            CHECK(t.device < plan.devices);
            CHECK(devicesOf[t.op].insert(t.device).second);
        }
        for (const TableMove &m : level.downloads) {
            CHECK(m.to == kHost);
            downloaded[m.table] += m.rows.rows;
        }
        for (const TableReserve &r : level.reserves)
            reserved.insert({r.device, r.table});
        for (const TableRelease &r : level.releases)
            CHECK(released.insert({r.device, r.table}).second);
    }
    CHECK(reserved == released);
    // An ordered run holds each reserved (device, table) once, in a range holding every reserve.
    std::map<std::pair<uint32_t, uint32_t>, RowSpan> widest;
    std::vector<uint64_t> heldBytes(plan.devices, 0);
    for (const TableReserve &r : heldToEnd(plan)) {
        CHECK(widest.emplace(std::pair{r.device, r.table}, r.rows).second);
        heldBytes[r.device] += r.rows.rows * sizeof(double);
    }
    CHECK(widest.size() == reserved.size());
    CHECK(heldBytes == plan.heldToEndBytes);
    for (const MultiDeviceLevel &level : plan.levels)
        for (const TableReserve &r : level.reserves)
            CHECK(widest[{r.device, r.table}].contains(r.rows));
    for (uint32_t t = 0; t < p.tables.size(); ++t)
        CHECK(downloaded[t] == (p.tables[t].input ? 0 : p.tables[t].entries()));
    for (uint32_t o = 0; o < p.ops.size(); ++o) {
        CHECK(covered[o] == p.tables[p.ops[o].output].entries());
        if (opWorkEntries(p, o) < threshold)
            CHECK(devicesOf[o].size() == 1);
    }
}

// The least to the greatest row of input j that output rows [first, end) of a join or reduction
// read, over every eliminated value: by brute force.
RowSpan rowsRead(const TensorProgram &p, uint32_t o, size_t j, uint64_t first, uint64_t end) {
    const TensorOp &op = p.ops[o];
    const Table &out = p.tables[op.output], &in = p.tables[op.inputs[j]];
    uint64_t eliminated = 1;
    for (uint32_t v : op.vars)
        eliminated *= p.domainSizes[v];
    std::vector<uint32_t> value(p.domainSizes.size(), 0);
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint64_t r = first; r < end; ++r) {
        for (size_t k = out.scope.size(), rest = r; k-- > 0; rest /= out.domains[k])
            value[out.scope[k]] = static_cast<uint32_t>(rest % out.domains[k]);
        for (uint64_t e = 0; e < eliminated; ++e) {
            for (size_t k = op.vars.size(), rest = e; k-- > 0; rest /= p.domainSizes[op.vars[k]])
                value[op.vars[k]] = static_cast<uint32_t>(rest % p.domainSizes[op.vars[k]]);
            uint64_t row = 0;
            for (size_t k = 0; k < in.scope.size(); ++k)
                row = row * in.domains[k] + value[in.scope[k]];
            lo = std::min(lo, row);
            hi = std::max(hi, row);
        }
    }
    return {lo, hi - lo + 1};
}

} // namespace

TEST_CASE("multi-device shares of an op whose kernel computes rows in groups read the input "
          "rows of their whole groups",
          "[multi-device]") {
    std::mt19937 rng(45);
    size_t cut = 0; // tasks whose range a group crosses
    for (int trial = 0; trial < 40; ++trial) {
        const TensorProgram p = trial % 3 == 2 ? randomWideEliminationProgram(rng)
                                               : randomBucketProgram(rng, trial % 2, false);
        MultiDeviceOptions o;
        o.sliceThresholdEntries = 1;
        o.wholeInputMaxEntries = 0;
        for (const TensorOp &op : p.ops) { // a span of trailing output variables, or none
            const Table &out = p.tables[op.output];
            uint64_t span = 1;
            for (size_t k = out.scope.size(); k-- > rng() % (out.scope.size() + 1);)
                span *= out.domains[k];
            o.rowGroupSpan.push_back(span);
        }
        auto plan = planMultiDevice(p, 2 + trial % 3, o);
        REQUIRE(plan.ok());
        std::vector<std::vector<RowSpan>> held(plan->devices,
                                               std::vector<RowSpan>(p.tables.size()));
        for (const MultiDeviceLevel &level : plan->levels) {
            for (const TableReserve &r : level.reserves)
                held[r.device][r.table] = r.rows;
            for (const DeviceTask &t : level.tasks) {
                const TensorOp &op = p.ops[t.op];
                if (op.kind != TensorOpKind::EliminateBucket &&
                    op.kind != TensorOpKind::Marginalize && op.kind != TensorOpKind::Join)
                    continue;
                const uint64_t span = o.rowGroupSpan[t.op];
                const uint64_t first = t.out.first / span * span;
                const uint64_t end = (t.out.end() + span - 1) / span * span;
                cut += first != t.out.first || end != t.out.end();
                for (size_t j = 0; j < op.inputs.size(); ++j) {
                    INFO("trial " << trial << ", op " << t.op << ", input " << j);
                    CHECK(held[t.device][op.inputs[j]].contains(rowsRead(p, t.op, j, first, end)));
                }
            }
        }
    }
    CHECK(cut > 10);
}

// The two ways' steps: level by level, each level's launches (one per device with tasks) in one
// block followed by waits for those devices, so every device is at work before any is waited
// for; ordered, no step waits before every level is enqueued and the Call made, then each device
// once, and the inputs arrive by HoldAll only.
void checkStepOrder(const std::vector<DeviceStep> &steps, const MultiDevicePlan &plan,
                    bool ordered) {
    std::vector<size_t> want, blocks; // launches per level that has tasks; per block of them
    for (const MultiDeviceLevel &level : plan.levels) {
        std::set<uint32_t> devices;
        for (const DeviceTask &t : level.tasks)
            devices.insert(t.device);
        if (!devices.empty())
            want.push_back(devices.size());
    }
    size_t waits = 0;
    for (size_t i = 0; i < steps.size(); ++i) {
        const DeviceStep &s = steps[i];
        waits += s.kind == StepKind::Wait;
        if (ordered) {
            if (s.kind == StepKind::Launch || s.kind == StepKind::PeerEnqueue ||
                s.kind == StepKind::Call)
                CHECK(waits == 0);
            CHECK((s.kind != StepKind::Upload && s.kind != StepKind::Reserve &&
                   s.kind != StepKind::PeerCopy));
            continue;
        }
        if (s.kind != StepKind::Launch || (i > 0 && steps[i - 1].kind == StepKind::Launch))
            continue;
        size_t n = 0;
        while (i + n < steps.size() && steps[i + n].kind == StepKind::Launch)
            ++n;
        blocks.push_back(n);
        REQUIRE(i + 2 * n <= steps.size());
        for (size_t k = 0; k < n; ++k)
            CHECK((steps[i + n + k].kind == StepKind::Wait &&
                   steps[i + n + k].device == steps[i + k].device));
    }
    if (ordered)
        CHECK(waits == plan.devices);
    else
        CHECK(blocks == want);
}

TEST_CASE("multi-device plans: independent buckets spread, large ones sliced with their input "
          "slices, and the run over stand-in devices equals the interpreter",
          "[multi-device]") {
    std::mt19937 rng(41);
    size_t sliced = 0, partialInputs = 0, spread = 0;
    for (int trial = 0; trial < 60; ++trial) {
        TensorProgram p = trial % 5 == 4 ? randomWideEliminationProgram(rng)
                                         : randomBucketProgram(rng, trial % 2, trial % 3 == 2);
        if (trial % 7 == 3)
            p = scrambleLayouts(std::move(p), rng); // slices wider than needed: still correct
        if (trial % 4 == 1)
            p.semiring = Semiring::SumProduct; // NaN poison
        auto ref = interpretTensorProgram(p);
        REQUIRE(ref.ok());
        const uint32_t devices = 1 + trial % 4;
        MultiDeviceOptions o;
        o.sliceThresholdEntries = trial % 3 == 0 ? 1 : 64; // slice nearly everything, or the large
        o.wholeInputMaxEntries = trial % 2 ? 0 : 2048;     // these programs' inputs are small
        auto plan = planMultiDevice(p, devices, o);
        INFO("trial " << trial << ", " << devices << " devices");
        REQUIRE(plan.ok());
        checkTasks(p, *plan, o.sliceThresholdEntries);
        if (devices == 1)
            CHECK(plan->peerBytes == 0);
        sliced += plan->slicedOps;
        for (uint32_t d = 0; d < devices; ++d)
            spread += devices > 1 && plan->work[d] > 0 && d > 0;
        // What each device holds when its tasks run: a sliced op's inputs only in part.
        std::vector<std::vector<RowSpan>> held(devices, std::vector<RowSpan>(p.tables.size()));
        std::vector<size_t> tasksOf(p.ops.size(), 0);
        for (const MultiDeviceLevel &level : plan->levels)
            for (const DeviceTask &t : level.tasks)
                ++tasksOf[t.op];
        for (const MultiDeviceLevel &level : plan->levels) {
            for (const TableReserve &r : level.reserves)
                held[r.device][r.table] = r.rows;
            for (const DeviceTask &t : level.tasks)
                if (tasksOf[t.op] > 1)
                    for (uint32_t in : p.ops[t.op].inputs)
                        partialInputs += held[t.device][in].rows < p.tables[in].entries();
        }

        for (const bool ordered : {false, true}) {
            checkStepOrder(multiDeviceSteps(*plan, ordered), *plan, ordered);
            StandIns s(p, devices);
            auto run = s.run(p, *plan, ordered);
            INFO((ordered ? "ordered: " : "level by level: ") << (run ? "" : run.error().str()));
            REQUIRE(run.ok());
            CHECK(sameTables(*run, *ref));
            CHECK(s.fabric.moved * sizeof(double) == plan->peerBytes);
        }
    }
    CHECK(sliced > 20);        // the slicing was exercised
    CHECK(partialInputs > 10); // ...with devices receiving slices of inputs, not whole tables
    CHECK(spread > 20);        // ...and whole buckets went to devices other than the first
}

TEST_CASE("multi-device plans for the VALUE phase on the devices download nothing and leave "
          "every table's rows, once each, where the run computed them",
          "[multi-device]") {
    std::mt19937 rng(43);
    size_t sliced = 0;
    for (int trial = 0; trial < 40; ++trial) {
        TensorProgram p = trial % 5 == 4 ? randomWideEliminationProgram(rng)
                                         : randomBucketProgram(rng, trial % 2, trial % 3 == 2);
        auto ref = interpretTensorProgram(p);
        REQUIRE(ref.ok());
        const uint32_t devices = 1 + trial % 4;
        MultiDeviceOptions o;
        o.sliceThresholdEntries = trial % 3 == 0 ? 1 : 64;
        o.wholeInputMaxEntries = trial % 2 ? 0 : 2048;
        o.keepForDecode = true;
        o.entryBytes = trial % 2 ? 4 : 8;
        auto plan = planMultiDevice(p, devices, o);
        INFO("trial " << trial << ", " << devices << " devices");
        REQUIRE(plan.ok());
        sliced += plan->slicedOps;
        CHECK(plan->downloadBytes == 0);
        for (const MultiDeviceLevel &level : plan->levels)
            CHECK(level.downloads.empty());
        // The holdings cover each table exactly (the VALUE phase's segments accept them).
        std::vector<cuda::TableSegment> segments;
        for (const TableHolding &h : decodeHoldings(p, *plan))
            segments.push_back({h.table, h.rows.first, h.rows.rows, 1});
        auto arrays = cuda::segmentArrays(p, segments);
        INFO((arrays ? "" : arrays.error().str()));
        CHECK(arrays.ok());

        for (const bool ordered : {false, true}) {
            StandIns s(p, devices);
            auto run = s.run(p, *plan, ordered);
            INFO((ordered ? "ordered" : "level by level"));
            REQUIRE(run.ok());
            // Every holding is still there at the end, equal to the interpreter's rows.
            for (const TableHolding &h : decodeHoldings(p, *plan)) {
                const EmulatedTensorDevice &d = *s.devices[h.device];
                REQUIRE(d.held()[h.table].contains(h.rows));
                const std::vector<double> &want =
                    p.tables[h.table].input ? p.tables[h.table].denseValues() : (*ref)[h.table];
                const auto from = static_cast<ptrdiff_t>(h.rows.first);
                const auto to = static_cast<ptrdiff_t>(h.rows.end());
                CHECK(sameTables({std::vector<double>(d.table(h.table).begin() + from,
                                                      d.table(h.table).begin() + to)},
                                 {std::vector<double>(want.begin() + from, want.begin() + to)}));
            }
        }
    }
    CHECK(sliced > 10);
}

TEST_CASE("the in-core run's steps on one device hold every table from the start, wait once, "
          "and compute the interpreter's tables",
          "[multi-device][in-core]") {
    std::mt19937 rng(47);
    for (int trial = 0; trial < 30; ++trial) {
        TensorProgram p = trial % 5 == 4 ? randomWideEliminationProgram(rng)
                                         : randomBucketProgram(rng, trial % 2, trial % 3 == 2);
        const bool decode = trial % 3 == 1;
        if (trial % 3 == 2) // the caller wants some tables only
            for (uint32_t t = 0; t < p.tables.size(); t += 2)
                if (!p.tables[t].input)
                    p.fetch.push_back(t);
        auto ref = interpretTensorProgram(p);
        REQUIRE(ref.ok());
        const std::vector<DeviceStep> steps = inCoreSteps(p, decode);
        INFO("trial " << trial);
        // No host round trip between levels: one HoldAll, one Prepare, a Launch per level, the
        // Call, one Wait, then downloads only.
        std::map<StepKind, size_t> kinds;
        for (const DeviceStep &step : steps) {
            ++kinds[step.kind];
            CHECK(step.device == 0);
        }
        CHECK(kinds[StepKind::HoldAll] == 1);
        CHECK(kinds[StepKind::Prepare] == 1);
        CHECK(kinds[StepKind::Launch] == p.levels.size());
        CHECK(kinds[StepKind::Wait] == 1);
        CHECK(kinds[StepKind::Call] == 1);
        CHECK(steps.back().kind ==
              (decode || kinds[StepKind::Download] == 0 ? StepKind::Wait : StepKind::Download));
        EmulatedTensorDevice device(p);
        TensorDevice *const devices[] = {&device};
        StepTargets targets;
        targets.devices = devices;
        bool called = false;
        targets.call = [&] {
            called = true;
            return Status(Ok{});
        };
        StepTimes times{};
        auto run = runDeviceSteps(p, steps, targets, times);
        REQUIRE(run.ok());
        CHECK(called);
        for (uint32_t t = 0; t < p.tables.size(); ++t) {
            if (p.tables[t].input) { // the VALUE phase reads the inputs on the device too
                if (decode)
                    CHECK(device.held()[t] == RowSpan{0, p.tables[t].entries()});
                continue;
            }
            const bool wanted =
                !decode &&
                (p.fetch.empty() || std::find(p.fetch.begin(), p.fetch.end(), t) != p.fetch.end());
            CHECK((*run)[t].empty() == !wanted);
            if (wanted)
                CHECK(sameTables({(*run)[t]}, {(*ref)[t]}));
            // Every computed table stays whole on the device (the VALUE phase reads it there).
            CHECK(device.held()[t] == RowSpan{0, p.tables[t].entries()});
            CHECK(sameTables({device.table(t)}, {(*ref)[t]}));
        }
    }
}

TEST_CASE("the one-device plan is the general planner's for one device", "[multi-device]") {
    std::mt19937 rng(59);
    const auto sorted = [](const auto &v, auto key) { // the keys, in order
        std::vector<decltype(key(v.front()))> keys;
        for (const auto &x : v)
            keys.push_back(key(x));
        std::sort(keys.begin(), keys.end());
        return keys;
    };
    const auto reserveKey = [](const TableReserve &r) {
        return std::tuple(r.table, r.device, r.rows.first, r.rows.rows);
    };
    const auto moveKey = [](const TableMove &m) {
        return std::tuple(m.table, m.from, m.to, m.rows.first, m.rows.rows);
    };
    for (int trial = 0; trial < 40; ++trial) {
        const TensorProgram p = trial % 5 == 4
                                    ? randomWideEliminationProgram(rng)
                                    : randomBucketProgram(rng, trial % 2, trial % 3 == 2);
        MultiDeviceOptions o;
        o.keepForDecode = trial % 2 == 1;
        auto general = planMultiDevice(p, 1, o);
        REQUIRE(general.ok());
        const MultiDevicePlan direct = oneDevicePlan(p, o);
        INFO("trial " << trial);
        REQUIRE(direct.levels.size() == general->levels.size());
        CHECK(sorted(heldToEnd(direct), reserveKey) == sorted(heldToEnd(*general), reserveKey));
        for (size_t l = 0; l < direct.levels.size(); ++l) {
            const MultiDeviceLevel &a = direct.levels[l], &b = general->levels[l];
            REQUIRE(a.tasks.size() == b.tasks.size());
            for (size_t i = 0; i < a.tasks.size(); ++i) { // the same order: the most work first
                CHECK(a.tasks[i].op == b.tasks[i].op);
                CHECK(a.tasks[i].out == b.tasks[i].out);
            }
            CHECK(sorted(a.moves, moveKey) == sorted(b.moves, moveKey));
            CHECK(sorted(a.downloads, moveKey) == sorted(b.downloads, moveKey));
        }
        CHECK(direct.work == general->work);
        CHECK(direct.uploadBytes == general->uploadBytes);
        CHECK(direct.downloadBytes == general->downloadBytes);
        CHECK(direct.heldToEndBytes == general->heldToEndBytes);
    }
}

TEST_CASE("a program without ops kept for its VALUE phase uploads its inputs all the same",
          "[multi-device][in-core]") {
    TensorProgram p; // a problem of constant costs only: nothing to compute
    for (double cost : {7.0, 5.0}) {
        Table t;
        t.input = true;
        t.values = {cost};
        p.tables.push_back(std::move(t));
    }
    p.results = {0, 1};
    REQUIRE(p.verify().ok());
    const std::vector<DeviceStep> steps = inCoreSteps(p, true);
    EmulatedTensorDevice device(p);
    TensorDevice *const devices[] = {&device};
    StepTargets targets;
    targets.devices = devices;
    StepTimes times{};
    REQUIRE(runDeviceSteps(p, steps, targets, times).ok());
    for (uint32_t t = 0; t < p.tables.size(); ++t) {
        CHECK(device.held()[t] == RowSpan{0, 1});
        CHECK(device.table(t) == p.tables[t].values);
    }
}

TEST_CASE("a prepared program's runs are the in-core steps without their HoldAll: inputs set on "
          "the device between runs reach the next run",
          "[multi-device][in-core]") {
    std::mt19937 rng(53);
    for (int trial = 0; trial < 20; ++trial) {
        TensorProgram p = randomBucketProgram(rng, trial % 2, false);
        const std::vector<DeviceStep> steps = inCoreSteps(p, true);
        REQUIRE(steps.front().kind == StepKind::HoldAll);
        EmulatedTensorDevice device(p);
        TensorDevice *const devices[] = {&device};
        StepTargets targets;
        targets.devices = devices;
        StepTimes times{};
        REQUIRE(runDeviceSteps(p, std::span(steps).first(1), targets, times).ok());
        const std::vector<DeviceStep> run(steps.begin() + 1, steps.end());
        TensorProgram changed = p; // what the device holds
        for (int again = 0; again < 2; ++again) {
            // New values of some inputs, set on the device only (a prepared program's setInput).
            for (uint32_t t = 0; t < p.tables.size(); ++t)
                if (p.tables[t].input && !p.tables[t].sparse && rng() % 2) {
                    for (double &v : changed.tables[t].values)
                        v = static_cast<double>(rng() % 7);
                    REQUIRE(device.upload(t, 0, changed.tables[t].values).ok());
                }
            auto ref = interpretTensorProgram(changed);
            REQUIRE(ref.ok());
            REQUIRE(runDeviceSteps(p, run, targets, times).ok());
            for (uint32_t t = 0; t < p.tables.size(); ++t)
                if (!p.tables[t].input)
                    CHECK(sameTables({device.table(t)}, {(*ref)[t]}));
        }
    }
}

TEST_CASE("multi-device plans slice a bucket too large for one device's budget, and refuse a "
          "budget they cannot meet, naming the device",
          "[multi-device]") {
    std::mt19937 rng(47);
    size_t slicedForMemory = 0;
    for (int trial = 0; trial < 20; ++trial) {
        const TensorProgram p = randomWideEliminationProgram(rng);
        uint64_t largest = 0; // the bytes of the op with the most tables
        for (const TensorOp &op : p.ops) {
            uint64_t entries = p.tables[op.output].entries();
            for (uint32_t in : op.inputs)
                entries += p.tables[in].entries();
            largest = std::max(largest, entries * sizeof(double));
        }
        MultiDeviceOptions o;
        o.sliceThresholdEntries = UINT64_MAX; // never for work: only for memory
        o.wholeInputMaxEntries = 0;
        o.deviceBudgetBytes = largest - 1;
        auto plan = planMultiDevice(p, 4, o);
        if (!plan) // the program's other tables did not fit beside it: a refusal, not a plan
            continue;
        checkTasks(p, *plan, 0); // sliced for memory, whatever their work
        slicedForMemory += plan->slicedOps > 0;
        for (uint64_t bytes : plan->deviceBytes)
            CHECK(bytes <= o.deviceBudgetBytes);
    }
    CHECK(slicedForMemory > 5);

    const TensorProgram p = randomWideEliminationProgram(rng);
    MultiDeviceOptions o;
    o.deviceBudgetBytes = 8;
    auto plan = planMultiDevice(p, 2, o);
    REQUIRE_FALSE(plan.ok());
    CHECK(plan.error().message.find("beyond its budget of") != std::string::npos);
}

TEST_CASE("outputs laid out for slicing compute the same tables and lead with an input's "
          "variable; the plan takes them only where fewer rows move",
          "[multi-device]") {
    std::mt19937 rng(71);
    size_t relaid = 0, taken = 0;
    for (int trial = 0; trial < 80; ++trial) {
        TensorProgram p = trial % 3 == 2 ? randomBucketProgram(rng, trial % 2, trial % 4 == 1)
                                         : randomWideEliminationProgram(rng);
        const uint32_t devices = 2 + trial % 3;
        MultiDeviceOptions o;
        o.sliceThresholdEntries = trial % 2 ? 1 : 64;
        o.wholeInputMaxEntries = 0;
        const std::optional<TensorProgram> r = relayoutForSlicing(p, devices, o);
        INFO("trial " << trial);
        if (!r)
            continue;
        ++relaid;
        REQUIRE(r->verify().ok());
        for (size_t t = 0; t < p.tables.size(); ++t) {
            const Table &a = p.tables[t], &b = r->tables[t];
            CHECK(std::is_permutation(a.scope.begin(), a.scope.end(), b.scope.begin(),
                                      b.scope.end()));
            if (a.input)
                CHECK(a.scope == b.scope); // no data moves
        }
        for (const TensorOp &op : r->ops) { // a relaid output leads with an input's leader
            const Table &out = r->tables[op.output];
            if (out.scope == p.tables[op.output].scope)
                continue;
            CHECK(std::any_of(op.inputs.begin(), op.inputs.end(), [&](uint32_t in) {
                return !r->tables[in].scope.empty() && r->tables[in].scope[0] == out.scope[0];
            }));
        }
        auto want = interpretTensorProgram(p);
        auto got = interpretTensorProgram(*r);
        REQUIRE(want.ok());
        REQUIRE(got.ok());
        restoreLayouts(p, *r, *got);
        CHECK(sameTables(*got, *want));
        // The plan taken moves no more than the program's own.
        const PlanFor planFor = [&](const TensorProgram &q) {
            return planMultiDevice(q, devices, o);
        };
        std::optional<TensorProgram> chosen;
        auto plan = planWithSliceLayouts(p, devices, o, planFor, chosen);
        auto own = planFor(p);
        REQUIRE(plan.ok());
        REQUIRE(own.ok());
        CHECK(plan->peerBytes <= own->peerBytes);
        taken += chosen.has_value();
    }
    CHECK(relaid > 15);
    CHECK(taken > 0);
}

TEST_CASE("a chain of sliced buckets laid out for slicing leaves its message where it was "
          "computed",
          "[multi-device]") {
    const TensorProgram p = zbddc::testing::slicedChainProgram();
    const uint32_t a = 0, b = 1, d = 3, u = 3; // variables a, b, d; table U
    MultiDeviceOptions o;
    o.sliceThresholdEntries = 4096; // the two buckets
    o.wholeInputMaxEntries = 0;
    o.keepForDecode = true;
    const PlanFor planFor = [&](const TensorProgram &q) { return planMultiDevice(q, 2, o); };
    std::optional<TensorProgram> relaid;
    auto plan = planWithSliceLayouts(p, 2, o, planFor, relaid);
    auto own = planFor(p);
    REQUIRE(plan.ok());
    REQUIRE(own.ok());
    REQUIRE(relaid.has_value());
    CHECK(relaid->tables[u].scope == std::vector<uint32_t>{a, d, b});
    // Both gather half of U for the marginalisation; the program's own layouts also send each
    // device the half of T it lacks.
    const uint64_t half = 16 * 16 * 16 * sizeof(double) / 2;
    CHECK(plan->peerBytes == half);
    CHECK(own->peerBytes == 3 * half);
    auto want = interpretTensorProgram(p);
    auto got = interpretTensorProgram(*relaid);
    REQUIRE(want.ok());
    REQUIRE(got.ok());
    restoreLayouts(p, *relaid, *got);
    CHECK(sameTables(*got, *want));
}

TEST_CASE("the cuda executor asked for several devices where none is usable says so",
          "[multi-device]") {
    if (gpuUsable()) {
        WARN("a GPU is here: test_multi_gpu covers the executor");
        return;
    }
    TensorExecutorOptions o;
    o.devices = "2";
    auto executor = makeTensorExecutor("cuda", o);
    REQUIRE_FALSE(executor.ok());
    const bool noBackend = executor.error().message.find("no CUDA backend") != std::string::npos;
    CHECK((noBackend || executor.error().message.find("--devices 2: ") == 0));
    o.devices = "0,x";
    auto malformed = makeTensorExecutor("cuda", o);
    REQUIRE_FALSE(malformed.ok());
    CHECK((noBackend ||
           malformed.error().message.find("'x' is not a GPU number") != std::string::npos));
}
