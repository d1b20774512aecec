#include "backends/tensor/cuda/multi_device_run.h"

#include "backends/tensor/cpu/tensor_cpu.h"
#include "ir/try.h"
#include "support/timer.h"

#include <chrono>

namespace zbddc {

Result<std::vector<std::vector<double>>>
runTensorProgramMultiDevice(const TensorProgram &p, const MultiDevicePlan &plan,
                            std::span<SliceDevice *const> devices, DeviceFabric &fabric,
                            MultiDeviceStats *stats) {
    if (plan.levels.size() != p.levels.size() || devices.size() != plan.devices)
        return error("internal error: the multi-device plan is not this program's");
    MultiDeviceStats local;
    MultiDeviceStats &st = stats ? *stats : local;
    std::vector<std::vector<double>> inputs(p.tables.size()), computed(p.tables.size());
    for (size_t t = 0; t < p.tables.size(); ++t)
        if (p.tables[t].input) {
            auto dense = denseInputValues(p.tables[t]);
            if (!dense)
                return dense.error();
            inputs[t] = std::move(*dense);
        }
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
        for (const TableMove &m : level.downloads) {
            std::vector<double> &table = computed[m.table];
            table.resize(p.tables[m.table].entries());
            const std::span<double> rows(table.data() + m.rows.first, m.rows.rows);
            ZBDDC_TRY(devices[static_cast<size_t>(m.from)]->download(m.table, m.rows.first, rows));
        }
        for (const TableRelease &r : level.releases)
            ZBDDC_TRY(devices[r.device]->release(r.table));
        st.downloadMs += msSince(t0);
    }
    for (SliceDevice *d : devices) // uploads to a device that ran no task are done too
        ZBDDC_TRY(d->wait());
    return computed;
}

} // namespace zbddc
