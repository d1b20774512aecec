#include "backends/tensor/devices/device_steps.h"

#include "backends/tensor/cpu/tensor_cpu.h"
#include "ir/try.h"
#include "support/memory.h"
#include "support/timer.h"

namespace zbddc {

namespace {

// The host's tables during a run: the inputs' complete values (the program's own, or expanded on
// first use where sparse), the computed tables, and a pointer to each (the CPU executor's view).
struct HostSide {
    const TensorProgram &p;
    std::vector<std::vector<double>> expanded, computed;
    std::vector<std::span<const double>> inputs;
    std::vector<const double *> data;
    explicit HostSide(const TensorProgram &program)
        : p(program), expanded(p.tables.size()), computed(p.tables.size()), inputs(p.tables.size()),
          data(p.tables.size(), nullptr) {}
    Status need(uint32_t t) {
        const Table &table = p.tables[t];
        if (!table.input || data[t])
            return Ok{};
        if (table.sparse) {
            auto dense = denseInputValues(table);
            if (!dense)
                return dense.error();
            expanded[t] = std::move(*dense);
        }
        inputs[t] = table.sparse ? std::span<const double>(expanded[t]) : table.values;
        data[t] = inputs[t].data();
        return Ok{};
    }
    Result<std::span<const double>> values(uint32_t t) {
        ZBDDC_TRY(need(t));
        return p.tables[t].input ? inputs[t] : std::span<const double>(computed[t]);
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
        auto values = h.values(s.table);
        if (!values)
            return values.error();
        if (s.rows.end() > values->size())
            return error("internal error: an upload of table " + std::to_string(s.table) +
                         " rows the host does not have");
        return device->upload(s.table, s.rows.first, values->subspan(s.rows.first, s.rows.rows));
    }
    case StepKind::Download: {
        std::vector<double> &table = h.computed[s.table];
        // A large out-of-core table's pages on huge pages where the host has them.
        if (table.empty())
            reserveOnHugePages(table, p.tables[s.table].entries());
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
        for (const TableReserve &r : s.ranges)
            ZBDDC_TRY(h.need(r.table));
        return device->holdAll(s.ranges, h.inputs);
    case StepKind::Prepare:
        return device->prepareLevels(s.levels);
    case StepKind::HostOps:
        for (uint32_t o : s.ops)
            for (uint32_t in : p.ops[o].inputs)
                ZBDDC_TRY(h.need(in));
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
    HostSide host(p);
    for (const DeviceStep &step : steps) {
        const auto t0 = std::chrono::steady_clock::now();
        ZBDDC_TRY(runStep(p, step, targets, host));
        const double ms = msSince(t0);
        if (step.clock != StepClock::None)
            times[static_cast<size_t>(step.clock)] += ms;
        if (targets.timed)
            targets.timed(step, ms);
    }
    return std::move(host.computed);
}

} // namespace zbddc
