#include "backends/tensor/devices/multi_device_run.h"

#include <algorithm>

namespace zbddc {

std::vector<DeviceStep> multiDeviceSteps(const MultiDevicePlan &plan, bool ordered,
                                         std::span<const uint32_t> fetch) {
    std::vector<DeviceStep> steps;
    // By table id, whether it is fetched: a search of `fetch` per download was quadratic in the
    // tables (a batch of evidence patterns fetches thousands of its tens of thousands).
    std::vector<uint8_t> fetched;
    for (uint32_t t : fetch) {
        if (t >= fetched.size())
            fetched.resize(t + 1, 0);
        fetched[t] = 1;
    }
    const auto downloads = [&](const MultiDeviceLevel &level) {
        for (const TableMove &m : level.downloads)
            if (fetch.empty() || (m.table < fetched.size() && fetched[m.table]))
                steps.push_back(makeStep(StepKind::Download, StepClock::Download,
                                         static_cast<uint32_t>(m.from), m.table, m.rows));
    };
    const auto onDevice = [&](StepKind kind, StepClock clock, uint32_t device) {
        steps.push_back(makeStep(kind, clock, device));
        return &steps.back();
    };
    const auto rows = [&](StepKind kind, StepClock clock, int device, uint32_t table, RowSpan r) {
        steps.push_back(makeStep(kind, clock, static_cast<uint32_t>(device), table, r));
    };
    // The host's rows are uploads; the others cross between devices.
    const auto peer = [&](const MultiDeviceLevel &level, StepKind kind, StepClock clock) {
        DeviceStep s = makeStep(kind, clock);
        for (const TableMove &m : level.moves)
            if (m.from != kHost)
                s.moves.push_back(m);
        if (!s.moves.empty())
            steps.push_back(std::move(s));
    };
    // tasks[d][l]: device d's tasks of level l.
    std::vector<std::vector<std::vector<DeviceTask>>> tasks(
        plan.devices, std::vector<std::vector<DeviceTask>>(plan.levels.size()));
    for (size_t l = 0; l < plan.levels.size(); ++l)
        for (const DeviceTask &task : plan.levels[l].tasks)
            tasks[task.device][l].push_back(task);
    // The level's tasks go into its steps (moved: the Prepare steps, made first, keep a copy).
    const auto launches = [&](size_t l, StepClock clock) {
        for (uint32_t d = 0; d < plan.devices; ++d)
            if (!tasks[d][l].empty())
                onDevice(StepKind::Launch, clock, d)->tasks = std::move(tasks[d][l]);
    };
    if (!ordered) {
        for (size_t l = 0; l < plan.levels.size(); ++l) {
            const MultiDeviceLevel &level = plan.levels[l];
            for (const TableReserve &r : level.reserves)
                rows(StepKind::Reserve, StepClock::Upload, static_cast<int>(r.device), r.table,
                     r.rows);
            for (const TableMove &m : level.moves)
                if (m.from == kHost)
                    rows(StepKind::Upload, StepClock::Upload, m.to, m.table, m.rows);
            peer(level, StepKind::PeerCopy, StepClock::Peer);
            std::vector<bool> busy(plan.devices);
            for (uint32_t d = 0; d < plan.devices; ++d)
                busy[d] = !tasks[d][l].empty();
            launches(l, StepClock::Compute); // every device at work before any is waited for
            for (uint32_t d = 0; d < plan.devices; ++d)
                if (busy[d])
                    onDevice(StepKind::Wait, StepClock::Compute, d);
            downloads(level);
            for (const TableRelease &r : level.releases)
                rows(StepKind::Release, StepClock::Download, static_cast<int>(r.device), r.table,
                     {});
        }
        for (uint32_t d = 0; d < plan.devices; ++d) // uploads to a device that ran no task too
            onDevice(StepKind::Wait, StepClock::None, d);
        onDevice(StepKind::Call, StepClock::Compute, 0);
        return steps;
    }
    std::vector<std::vector<TableReserve>> ranges(plan.devices);
    for (const TableReserve &r : heldToEnd(plan))
        ranges[r.device].push_back(r);
    for (uint32_t d = 0; d < plan.devices; ++d) {
        onDevice(StepKind::HoldAll, StepClock::Upload, d)->ranges = std::move(ranges[d]);
        onDevice(StepKind::Prepare, StepClock::Upload, d)->levels = tasks[d];
    }
    for (size_t l = 0; l < plan.levels.size(); ++l) {
        peer(plan.levels[l], StepKind::PeerEnqueue, StepClock::Compute);
        launches(l, StepClock::Compute);
    }
    onDevice(StepKind::Call, StepClock::Compute, 0);
    for (uint32_t d = 0; d < plan.devices; ++d)
        onDevice(StepKind::Wait, StepClock::Compute, d);
    for (const MultiDeviceLevel &level : plan.levels)
        downloads(level);
    return steps;
}

std::vector<DeviceStep> inCoreSteps(const TensorProgram &program, bool decode) {
    MultiDeviceOptions options;
    options.keepForDecode = decode;
    return multiDeviceSteps(oneDevicePlan(program, options), true, program.fetch);
}

} // namespace zbddc
