#include "backends/tensor/devices/multi_device_plan.h"

#include "backends/tensor/devices/host_device_split.h"
#include "ir/try.h"

#include <algorithm>
#include <numeric>
#include <span>
#include <string>

namespace zbddc {

namespace {

// One device's share of an op: the output rows it computes and the rows of each input they read.
struct OpShare {
    uint32_t device = 0;
    RowSpan out;
    std::vector<RowSpan> inputs;
};

OpShare wholeOp(const TensorProgram &p, uint32_t o, uint32_t device) {
    const TensorOp &op = p.ops[o];
    OpShare s{device, {0, p.tables[op.output].entries()}, {}};
    for (uint32_t in : op.inputs)
        s.inputs.push_back({0, p.tables[in].entries()});
    return s;
}

// The op's output cut into row ranges along its fewest leading variables that give every device a
// chunk; each share reads the input rows of the row groups (`groupSpan` rows) its rows fall in.
std::vector<OpShare> sliceOp(const TensorProgram &p, uint32_t o, uint32_t devices,
                             uint64_t wholeInputMaxEntries, uint64_t groupSpan) {
    const TensorOp &op = p.ops[o];
    const Table &out = p.tables[op.output];
    uint32_t fixed = 0;
    uint64_t chunks = 1;
    while (fixed < out.scope.size() && chunks < devices)
        chunks *= out.domains[fixed++];
    ChunkPlanOptions whole;
    whole.wholeInputMaxEntries = wholeInputMaxEntries;
    const OpChunkPlan plan = opChunkCandidate(p, o, fixed, 0, whole);
    // A span and a chunk are both products of trailing domains: one divides the other.
    const uint64_t chunksPerGroup = std::max<uint64_t>(1, groupSpan / plan.chunkRows);
    std::vector<OpShare> shares;
    for (uint32_t d = 0; d < devices; ++d) {
        const uint64_t c0 = chunks * d / devices, c1 = chunks * (d + 1) / devices;
        if (c0 == c1)
            continue;
        OpShare s{d, {c0 * plan.chunkRows, (c1 - c0) * plan.chunkRows}, {}};
        const uint64_t read0 = c0 / chunksPerGroup * chunksPerGroup;
        const uint64_t read1 =
            std::min(chunks, (c1 + chunksPerGroup - 1) / chunksPerGroup * chunksPerGroup);
        for (size_t j = 0; j < op.inputs.size(); ++j) {
            RowSpan h;
            for (uint64_t c = read0; c < read1; ++c)
                h = hull(h, inputRange(p, o, plan, j, c, 0));
            s.inputs.push_back(h);
        }
        shares.push_back(std::move(s));
    }
    return shares;
}

uint64_t opEntries(const TensorProgram &p, uint32_t o) {
    uint64_t entries = p.tables[p.ops[o].output].entries();
    for (uint32_t in : p.ops[o].inputs)
        entries += p.tables[in].entries();
    return entries;
}

// The levels a plan has: the program's, or, where a program without ops is kept for its VALUE
// phase, one level of uploads alone (its inputs still go to the device).
std::span<const std::vector<uint32_t>> plannedLevels(const TensorProgram &p, bool keepForDecode) {
    static const std::vector<std::vector<uint32_t>> uploadsOnly(1);
    if (p.levels.empty() && keepForDecode)
        return uploadsOnly;
    return p.levels;
}

// A level's ops in the order they are placed and launched: the most work first.
std::vector<uint32_t> mostWorkFirst(const TensorProgram &p, std::span<const uint32_t> ops) {
    std::vector<std::pair<uint64_t, uint32_t>> byWork; // each op's work computed once
    byWork.reserve(ops.size());
    for (uint32_t o : ops)
        byWork.emplace_back(opWorkEntries(p, o), o);
    std::stable_sort(byWork.begin(), byWork.end(),
                     [](const auto &a, const auto &b) { return a.first > b.first; });
    std::vector<uint32_t> order;
    order.reserve(ops.size());
    for (const auto &[work, o] : byWork)
        order.push_back(o);
    return order;
}

class Planner {
  public:
    Planner(const TensorProgram &p, uint32_t devices, const MultiDeviceOptions &options)
        : p_(p), options_(options), held_(devices, std::vector<RowSpan>(p.tables.size())),
          before_(held_), changedIn_(devices, std::vector<uint32_t>(p.tables.size(), UINT32_MAX)) {
        plan_.devices = devices;
        plan_.work.assign(devices, 0);
    }

    Result<MultiDevicePlan> run() {
        for (const std::vector<uint32_t> &ops : plannedLevels(p_, options_.keepForDecode)) {
            level_ = &plan_.levels.emplace_back();
            levelIndex_ = static_cast<uint32_t>(plan_.levels.size() - 1);
            if (options_.keepForDecode && plan_.levels.size() == 1) // the VALUE phase's inputs
                for (uint32_t t = 0; t < p_.tables.size(); ++t)
                    if (p_.tables[t].input)
                        ZBDDC_TRY(need(0, t, {0, p_.tables[t].entries()}));
            for (uint32_t o : mostWorkFirst(p_, ops))
                ZBDDC_TRY(place(o));
        }
        planReleases();
        for (uint32_t d = 0; d < plan_.devices; ++d) {
            if (options_.deviceBudgetBytes && plan_.deviceBytes[d] > options_.deviceBudgetBytes)
                return error("device " + std::to_string(d) + " would hold " +
                             std::to_string(plan_.deviceBytes[d] >> 20) +
                             " MiB of tables, beyond its budget of " +
                             std::to_string(options_.deviceBudgetBytes >> 20) +
                             " MiB: use more devices, or one device out of core");
        }
        return std::move(plan_);
    }

  private:
    Status place(uint32_t o) {
        const TensorOp &op = p_.ops[o];
        const uint64_t work = opWorkEntries(p_, o);
        const Table &out = p_.tables[op.output];
        std::vector<OpShare> shares;
        if (slicedAcrossDevices(p_, o, plan_.devices, options_))
            shares = sliceOp(p_, o, plan_.devices, options_.wholeInputMaxEntries,
                             o < options_.rowGroupSpan.size() ? options_.rowGroupSpan[o] : 1);
        else
            shares.push_back(wholeOp(p_, o, leastLoaded()));
        plan_.slicedOps += shares.size() > 1;
        for (const OpShare &s : shares) {
            plan_.work[s.device] +=
                static_cast<uint64_t>(static_cast<double>(work) * static_cast<double>(s.out.rows) /
                                      static_cast<double>(out.entries()));
            for (size_t j = 0; j < op.inputs.size(); ++j)
                if (Status st = need(s.device, op.inputs[j], s.inputs[j]); !st)
                    return st;
            const RowSpan h = hull(held_[s.device][op.output], s.out);
            grow(s.device, op.output, h);
            level_->reserves.push_back({op.output, s.device, h});
            level_->tasks.push_back({o, s.device, s.out, {}});
            if (!options_.keepForDecode) {
                level_->downloads.push_back({op.output, static_cast<int>(s.device), kHost, s.out});
                plan_.downloadBytes += s.out.rows * options_.entryBytes;
            }
        }
        return Ok{};
    }

    // Each device frees a table after the last level that touches it there (reserves it, reads
    // it in a task or a move, computes it), but for the holdings the VALUE phase reads; the most
    // bytes each device holds at once follow.
    void planReleases() {
        const size_t tables = p_.tables.size();
        std::vector<std::vector<int>> last(plan_.devices, std::vector<int>(tables, -1));
        std::vector<std::vector<bool>> kept(plan_.devices, std::vector<bool>(tables, false));
        if (options_.keepForDecode)
            for (const TableHolding &h : decodeHoldings(p_, plan_))
                kept[h.device][h.table] = true;
        for (int l = 0; l < static_cast<int>(plan_.levels.size()); ++l) {
            const MultiDeviceLevel &level = plan_.levels[static_cast<size_t>(l)];
            for (const TableReserve &r : level.reserves)
                last[r.device][r.table] = l;
            for (const TableMove &m : level.moves)
                if (m.from != kHost)
                    last[static_cast<size_t>(m.from)][m.table] = l;
            for (const DeviceTask &t : level.tasks)
                for (uint32_t in : p_.ops[t.op].inputs)
                    last[t.device][in] = l;
        }
        for (uint32_t d = 0; d < plan_.devices; ++d)
            for (uint32_t t = 0; t < tables; ++t)
                if (last[d][t] >= 0 && !kept[d][t])
                    plan_.levels[static_cast<size_t>(last[d][t])].releases.push_back({t, d});
        plan_.heldToEndBytes.assign(plan_.devices, 0);
        for (const TableReserve &r : heldToEnd(plan_))
            plan_.heldToEndBytes[r.device] += r.rows.rows * options_.entryBytes;
        plan_.deviceBytes.assign(plan_.devices, 0);
        std::vector<uint64_t> now(plan_.devices, 0);
        std::vector<std::vector<uint64_t>> rows(plan_.devices, std::vector<uint64_t>(tables, 0));
        for (const MultiDeviceLevel &level : plan_.levels) {
            for (const TableReserve &r : level.reserves) {
                now[r.device] += (r.rows.rows - rows[r.device][r.table]) * options_.entryBytes;
                rows[r.device][r.table] = r.rows.rows;
                plan_.deviceBytes[r.device] = std::max(plan_.deviceBytes[r.device], now[r.device]);
            }
            for (const TableRelease &r : level.releases) {
                now[r.device] -= rows[r.device][r.table] * options_.entryBytes;
                rows[r.device][r.table] = 0;
            }
        }
    }

    uint32_t leastLoaded() const {
        return static_cast<uint32_t>(std::min_element(plan_.work.begin(), plan_.work.end()) -
                                     plan_.work.begin());
    }

    // Device d gets rows `want` of table t: its range grows to cover them, the rows it lacks come
    // from the host (inputs) or from the devices holding them.
    Status need(uint32_t d, uint32_t t, RowSpan want) {
        const RowSpan h = held_[d][t];
        if (want.rows == 0 || h.contains(want))
            return Ok{};
        const RowSpan now = hull(h, want);
        level_->reserves.push_back({t, d, now});
        const RowSpan lacking[2] = {h.rows ? RowSpan{now.first, h.first - now.first} : now,
                                    h.rows ? RowSpan{h.end(), now.end() - h.end()} : RowSpan{}};
        grow(d, t, now);
        for (RowSpan part : lacking)
            if (part.rows)
                ZBDDC_TRY(fill(t, static_cast<int>(d), part, level_->moves));
        return Ok{};
    }

    // Device d's range of table t becomes `now`; what it held before this level is kept for
    // heldBefore.
    void grow(uint32_t d, uint32_t t, RowSpan now) {
        if (changedIn_[d][t] != levelIndex_) {
            changedIn_[d][t] = levelIndex_;
            before_[d][t] = held_[d][t];
        }
        held_[d][t] = now;
    }
    // What device d held of table t when this level began: a level's moves read only what earlier
    // levels left.
    RowSpan heldBefore(uint32_t d, uint32_t t) const {
        return changedIn_[d][t] == levelIndex_ ? before_[d][t] : held_[d][t];
    }

    // Moves of rows `part` of table t to device `to`, each from the holder (before this level)
    // reaching furthest.
    Status fill(uint32_t t, int to, RowSpan part, std::vector<TableMove> &moves) {
        if (p_.tables[t].input) {
            moves.push_back({t, kHost, to, part});
            plan_.uploadBytes += part.rows * options_.entryBytes;
            return Ok{};
        }
        for (uint64_t pos = part.first; pos < part.end();) {
            int best = -1;
            uint64_t reach = pos;
            for (uint32_t e = 0; e < plan_.devices; ++e) {
                const RowSpan h = heldBefore(e, t);
                if (static_cast<int>(e) != to && h.rows && h.first <= pos && h.end() > reach)
                    best = static_cast<int>(e), reach = h.end();
            }
            if (best < 0)
                return error("internal error: row " + std::to_string(pos) + " of table " +
                             std::to_string(t) + " is held by no device");
            const uint64_t end = std::min(reach, part.end());
            moves.push_back({t, best, to, {pos, end - pos}});
            plan_.peerBytes += (end - pos) * options_.entryBytes;
            pos = end;
        }
        return Ok{};
    }

    const TensorProgram &p_;
    MultiDeviceOptions options_;
    MultiDevicePlan plan_;
    std::vector<std::vector<RowSpan>> held_, before_; // [device][table]
    std::vector<std::vector<uint32_t>> changedIn_;    // [device][table]: the level before_ is of
    uint32_t levelIndex_ = 0;
    MultiDeviceLevel *level_ = nullptr;
};

} // namespace

bool slicedAcrossDevices(const TensorProgram &p, uint32_t o, uint32_t devices,
                         const MultiDeviceOptions &options) {
    const bool large = opWorkEntries(p, o) >= options.sliceThresholdEntries ||
                       (options.deviceBudgetBytes &&
                        opEntries(p, o) * options.entryBytes > options.deviceBudgetBytes);
    return devices > 1 && large && !p.tables[p.ops[o].output].scope.empty();
}

Result<MultiDevicePlan> planMultiDevice(const TensorProgram &program, uint32_t devices,
                                        const MultiDeviceOptions &options) {
    ZBDDC_TRY(program.verify());
    if (devices == 0)
        return error("internal error: a multi-device plan for no device");
    return Planner(program, devices, options).run();
}

MultiDevicePlan oneDevicePlan(const TensorProgram &p, const MultiDeviceOptions &options) {
    MultiDevicePlan plan;
    plan.work.assign(1, 0);
    plan.deviceBytes.assign(1, 0);
    std::vector<bool> held(p.tables.size(), false);
    const auto hold = [&](MultiDeviceLevel &level, uint32_t t) {
        if (held[t])
            return;
        held[t] = true;
        const RowSpan whole{0, p.tables[t].entries()};
        level.reserves.push_back({t, 0, whole});
        plan.deviceBytes[0] += whole.rows * options.entryBytes;
        if (p.tables[t].input) {
            level.moves.push_back({t, kHost, 0, whole});
            plan.uploadBytes += whole.rows * options.entryBytes;
        }
    };
    for (const std::vector<uint32_t> &ops : plannedLevels(p, options.keepForDecode)) {
        MultiDeviceLevel &level = plan.levels.emplace_back();
        if (options.keepForDecode && plan.levels.size() == 1)
            for (uint32_t t = 0; t < p.tables.size(); ++t)
                if (p.tables[t].input)
                    hold(level, t);
        for (uint32_t o : mostWorkFirst(p, ops)) {
            for (uint32_t in : p.ops[o].inputs)
                hold(level, in);
            hold(level, p.ops[o].output);
            const DeviceTask task = wholeOpTask(p, o);
            level.tasks.push_back(task);
            plan.work[0] += opWorkEntries(p, o);
            if (!options.keepForDecode) {
                level.downloads.push_back({p.ops[o].output, 0, kHost, task.out});
                plan.downloadBytes += task.out.rows * options.entryBytes;
            }
        }
    }
    plan.heldToEndBytes = plan.deviceBytes;
    return plan;
}

std::vector<TableReserve> heldToEnd(const MultiDevicePlan &plan) {
    std::vector<std::vector<TableReserve>> last(plan.devices); // by device, in first-reserve order
    std::vector<std::vector<uint32_t>> at(plan.devices);       // by device and table: its index
    for (const MultiDeviceLevel &level : plan.levels)
        for (const TableReserve &r : level.reserves) {
            std::vector<uint32_t> &index = at[r.device];
            if (index.size() <= r.table)
                index.resize(r.table + 1, UINT32_MAX);
            if (index[r.table] == UINT32_MAX) {
                index[r.table] = static_cast<uint32_t>(last[r.device].size());
                last[r.device].push_back(r);
            } else {
                last[r.device][index[r.table]] = r;
            }
        }
    std::vector<TableReserve> out;
    for (const std::vector<TableReserve> &device : last)
        out.insert(out.end(), device.begin(), device.end());
    return out;
}

std::vector<TableHolding> decodeHoldings(const TensorProgram &program,
                                         const MultiDevicePlan &plan) {
    std::vector<TableHolding> out;
    for (uint32_t t = 0; t < program.tables.size(); ++t)
        if (program.tables[t].input)
            out.push_back({t, 0, {0, program.tables[t].entries()}});
    for (const MultiDeviceLevel &level : plan.levels)
        for (const DeviceTask &task : level.tasks)
            out.push_back({program.ops[task.op].output, task.device, task.out});
    return out;
}

} // namespace zbddc
