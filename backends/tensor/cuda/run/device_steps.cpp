#include "backends/tensor/cuda/run/device_steps.h"

#include "backends/tensor/cpu/tensor_cpu.h"
#include "ir/try.h"
#include "support/timer.h"

namespace zbddc {

namespace {

// The host's tables during a run: the inputs' complete values, the computed tables that came
// back or were computed here, and a pointer to each one present (the CPU executor's view).
struct HostSide {
    std::vector<std::vector<double>> inputs, computed;
    std::vector<const double *> data;
    const std::vector<double> &values(const TensorProgram &p, uint32_t t) const {
        return p.tables[t].input ? inputs[t] : computed[t];
    }
};

Status runStep(const TensorProgram &p, const DeviceStep &s, const StepTargets &on, HostSide &h) {
    TensorDevice *device = s.device < on.devices.size() ? on.devices[s.device] : nullptr;
    const bool needsDevice = s.kind != StepKind::PeerCopy && s.kind != StepKind::PeerEnqueue &&
                             s.kind != StepKind::HostOps && s.kind != StepKind::Call;
    if (needsDevice && !device)
        return error("internal error: a step on device " + std::to_string(s.device) +
                     ", which the run was not given");
    if ((s.kind == StepKind::PeerCopy || s.kind == StepKind::PeerEnqueue) && !on.fabric)
        return error("internal error: a device-to-device step and no fabric");
    switch (s.kind) {
    case StepKind::Reserve:
        return device->reserve(s.table, s.rows);
    case StepKind::Release:
        return device->release(s.table);
    case StepKind::Upload: {
        const std::vector<double> &values = h.values(p, s.table);
        if (s.rows.end() > values.size())
            return error("internal error: an upload of table " + std::to_string(s.table) +
                         " rows the host does not have");
        return device->upload(s.table, s.rows.first,
                              std::span(values).subspan(s.rows.first, s.rows.rows));
    }
    case StepKind::Download: {
        std::vector<double> &table = h.computed[s.table];
        table.resize(p.tables[s.table].entries());
        ZBDDC_TRY(device->download(s.table, s.rows.first,
                                   std::span(table).subspan(s.rows.first, s.rows.rows)));
        h.data[s.table] = table.data();
        return Ok{};
    }
    case StepKind::Launch:
        return device->launch(s.tasks);
    case StepKind::Wait:
        return device->wait();
    case StepKind::PeerCopy:
        return on.fabric->copy(s.moves);
    case StepKind::PeerEnqueue:
        return on.fabric->enqueue(s.moves);
    case StepKind::HoldAll:
        return device->holdAll(s.ranges, h.inputs);
    case StepKind::Prepare:
        return device->prepareLevels(s.levels);
    case StepKind::HostOps:
        return runTensorOpsCpu(p, s.ops, h.data, h.computed, on.hostThreads);
    case StepKind::Call:
        return on.call ? on.call() : Ok{};
    }
    return error("internal error: an unknown step");
}

} // namespace

Result<std::vector<std::vector<double>>> runDeviceSteps(const TensorProgram &p,
                                                        std::span<const DeviceStep> steps,
                                                        const StepTargets &targets,
                                                        StepTimes &times) {
    HostSide host;
    auto complete = denseInputTables(p);
    if (!complete)
        return complete.error();
    host.inputs = std::move(*complete);
    host.computed.resize(p.tables.size());
    host.data.assign(p.tables.size(), nullptr);
    for (size_t t = 0; t < p.tables.size(); ++t)
        if (p.tables[t].input)
            host.data[t] = host.inputs[t].data();
    for (const DeviceStep &step : steps) {
        const auto t0 = std::chrono::steady_clock::now();
        ZBDDC_TRY(runStep(p, step, targets, host));
        if (step.clock != StepClock::None)
            times[static_cast<size_t>(step.clock)] += msSince(t0);
    }
    return std::move(host.computed);
}

} // namespace zbddc
