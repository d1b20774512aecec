#include "backends/tensor/cuda/run/multi_device_run.h"

#include "backends/tensor/cpu/tensor_cpu.h"
#include "ir/try.h"
#include "support/timer.h"

#include <chrono>

namespace zbddc {

namespace {

// Rows m.rows of a computed table from device m.from into `computed` (sized on first use).
Status download(const TensorProgram &p, std::span<TensorDevice *const> devices, const TableMove &m,
                std::vector<std::vector<double>> &computed) {
    std::vector<double> &table = computed[m.table];
    table.resize(p.tables[m.table].entries());
    const std::span<double> rows(table.data() + m.rows.first, m.rows.rows);
    return devices[static_cast<size_t>(m.from)]->download(m.table, m.rows.first, rows);
}

// Every level waited for by the host (see multi_device_run.h).
Status runLevelByLevel(const TensorProgram &p, const MultiDevicePlan &plan,
                       std::span<TensorDevice *const> devices, DeviceFabric &fabric,
                       const std::vector<std::vector<double>> &inputs,
                       std::vector<std::vector<double>> &computed, MultiDeviceStats &st) {
    std::vector<std::vector<DeviceTask>> tasks(plan.devices);
    for (const MultiDeviceLevel &level : plan.levels) {
        auto t0 = std::chrono::steady_clock::now();
        for (const TableReserve &r : level.reserves)
            ZBDDC_TRY(devices[r.device]->reserve(r.table, r.rows));
        std::vector<TableMove> peer;
        for (const TableMove &m : level.moves) {
            if (m.from != kHost) {
                peer.push_back(m);
                continue;
            }
            const std::span<const double> rows(inputs[m.table].data() + m.rows.first, m.rows.rows);
            ZBDDC_TRY(devices[static_cast<size_t>(m.to)]->upload(m.table, m.rows.first, rows));
        }
        st.uploadMs += msSince(t0);
        t0 = std::chrono::steady_clock::now();
        if (!peer.empty())
            ZBDDC_TRY(fabric.copy(peer));
        st.peerMs += msSince(t0);
        t0 = std::chrono::steady_clock::now();
        for (auto &v : tasks)
            v.clear();
        for (const DeviceTask &task : level.tasks)
            tasks[task.device].push_back(task);
        for (uint32_t d = 0; d < plan.devices; ++d)
            if (!tasks[d].empty())
                ZBDDC_TRY(devices[d]->launch(tasks[d]));
        for (uint32_t d = 0; d < plan.devices; ++d)
            if (!tasks[d].empty())
                ZBDDC_TRY(devices[d]->wait());
        st.computeMs += msSince(t0);
        t0 = std::chrono::steady_clock::now();
        for (const TableMove &m : level.downloads)
            ZBDDC_TRY(download(p, devices, m, computed));
        for (const TableRelease &r : level.releases)
            ZBDDC_TRY(devices[r.device]->release(r.table));
        st.downloadMs += msSince(t0);
    }
    for (TensorDevice *d : devices) // uploads to a device that ran no task are done too
        ZBDDC_TRY(d->wait());
    return Ok{};
}

// Every range held from the start, the levels enqueued, one wait at the end (multi_device_run.h).
Status runOrdered(const TensorProgram &p, const MultiDevicePlan &plan,
                  std::span<TensorDevice *const> devices, DeviceFabric &fabric,
                  const std::vector<std::vector<double>> &inputs,
                  std::vector<std::vector<double>> &computed, MultiDeviceStats &st,
                  const BeforeWait &beforeWait) {
    auto t0 = std::chrono::steady_clock::now();
    std::vector<std::vector<TableReserve>> ranges(plan.devices);
    for (const TableReserve &r : heldToEnd(plan))
        ranges[r.device].push_back(r);
    // tasks[d][l]: device d's tasks of level l.
    std::vector<std::vector<std::vector<DeviceTask>>> tasks(
        plan.devices, std::vector<std::vector<DeviceTask>>(plan.levels.size()));
    for (size_t l = 0; l < plan.levels.size(); ++l)
        for (const DeviceTask &task : plan.levels[l].tasks)
            tasks[task.device][l].push_back(task);
    for (uint32_t d = 0; d < plan.devices; ++d) {
        ZBDDC_TRY(devices[d]->holdAll(ranges[d], inputs));
        ZBDDC_TRY(devices[d]->prepareLevels(tasks[d]));
    }
    st.uploadMs = msSince(t0);
    t0 = std::chrono::steady_clock::now();
    for (size_t l = 0; l < plan.levels.size(); ++l) {
        std::vector<TableMove> peer; // the host's rows are on the devices already
        for (const TableMove &m : plan.levels[l].moves)
            if (m.from != kHost)
                peer.push_back(m);
        if (!peer.empty())
            ZBDDC_TRY(fabric.enqueue(peer));
        for (uint32_t d = 0; d < plan.devices; ++d)
            if (!tasks[d][l].empty())
                ZBDDC_TRY(devices[d]->launch(tasks[d][l]));
    }
    if (beforeWait)
        ZBDDC_TRY(beforeWait());
    for (TensorDevice *d : devices)
        ZBDDC_TRY(d->wait());
    st.computeMs = msSince(t0);
    t0 = std::chrono::steady_clock::now();
    for (const MultiDeviceLevel &level : plan.levels)
        for (const TableMove &m : level.downloads)
            ZBDDC_TRY(download(p, devices, m, computed));
    st.downloadMs = msSince(t0);
    return Ok{};
}

} // namespace

Result<std::vector<std::vector<double>>>
runTensorProgramMultiDevice(const TensorProgram &p, const MultiDevicePlan &plan,
                            std::span<TensorDevice *const> devices, DeviceFabric &fabric,
                            MultiDeviceStats *stats, bool ordered, const BeforeWait &beforeWait) {
    if (plan.levels.size() != p.levels.size() || devices.size() != plan.devices)
        return error("internal error: the multi-device plan is not this program's");
    MultiDeviceStats local;
    MultiDeviceStats &st = stats ? *stats : local;
    st.ordered = ordered;
    auto complete = denseInputTables(p);
    if (!complete)
        return complete.error();
    const std::vector<std::vector<double>> &inputs = *complete;
    std::vector<std::vector<double>> computed(p.tables.size());
    if (ordered) {
        ZBDDC_TRY(runOrdered(p, plan, devices, fabric, inputs, computed, st, beforeWait));
        return computed;
    }
    ZBDDC_TRY(runLevelByLevel(p, plan, devices, fabric, inputs, computed, st));
    const auto t0 = std::chrono::steady_clock::now();
    if (beforeWait)
        ZBDDC_TRY(beforeWait());
    st.computeMs += msSince(t0);
    return computed;
}

} // namespace zbddc
