#include "backends/tensor/devices/host_device_split.h"
#include "ir/try.h"

#include <algorithm>

namespace zbddc {

uint64_t opWorkEntries(const TensorProgram &p, uint32_t o) {
    const TensorOp &op = p.ops[o];
    uint64_t work = p.tables[op.output].entries();
    if (reducesVariables(op.kind))
        for (uint32_t v : op.vars)
            work *= p.domainSizes[v];
    return work;
}

SplitPlan planHostDeviceSplit(const TensorProgram &p, uint64_t thresholdEntries) {
    SplitPlan plan;
    plan.thresholdEntries = thresholdEntries;
    plan.side.resize(p.ops.size(), OpSide::Host);
    std::vector<uint32_t> producer(p.tables.size(), UINT32_MAX);
    for (uint32_t o = 0; o < p.ops.size(); ++o) {
        producer[p.ops[o].output] = o;
        if (opWorkEntries(p, o) >= thresholdEntries)
            plan.side[o] = OpSide::Device;
    }
    auto onDevice = [&](uint32_t table) {
        return producer[table] != UINT32_MAX && plan.side[producer[table]] == OpSide::Device;
    };
    std::vector<bool> resident(p.tables.size(), false);   // a copy is on the device
    std::vector<bool> downloaded(p.tables.size(), false); // a device output is on the host
    for (uint32_t t = 0; t < p.tables.size(); ++t)
        resident[t] = onDevice(t);
    // Host ops read device outputs: the last level at which each is first needed on the host.
    plan.levels.resize(p.levels.size());
    std::vector<size_t> levelOf(p.ops.size());
    for (size_t l = 0; l < p.levels.size(); ++l)
        for (uint32_t o : p.levels[l])
            levelOf[o] = l;
    for (size_t l = 0; l < p.levels.size(); ++l) {
        SplitLevel &level = plan.levels[l];
        for (uint32_t o : p.levels[l]) {
            const bool device = plan.side[o] == OpSide::Device;
            (device ? level.deviceOps : level.hostOps).push_back(o);
            ++(device ? plan.deviceOps : plan.hostOps);
            for (uint32_t in : p.ops[o].inputs) {
                if (device && !resident[in]) {
                    resident[in] = true;
                    level.uploads.push_back(in);
                    plan.uploadBytes += p.tables[in].entries() * sizeof(double);
                }
                if (!device && onDevice(in) && !downloaded[in]) {
                    // Downloaded right after the level that produced it.
                    downloaded[in] = true;
                    plan.levels[levelOf[producer[in]]].downloads.push_back(in);
                    plan.downloadBytes += p.tables[in].entries() * sizeof(double);
                }
            }
        }
    }
    for (uint32_t t = 0; t < p.tables.size(); ++t)
        if (onDevice(t) && !downloaded[t]) {
            plan.finalDownloads.push_back(t);
            plan.downloadBytes += p.tables[t].entries() * sizeof(double);
        }
    return plan;
}

std::vector<DeviceStep> splitSteps(const TensorProgram &p, const SplitPlan &plan) {
    std::vector<DeviceStep> steps;
    const auto whole = [&](StepKind kind, uint32_t t, StepClock clock) {
        steps.push_back(makeStep(kind, clock, 0, t, {0, p.tables[t].entries()}));
    };
    for (const SplitLevel &level : plan.levels) {
        for (uint32_t t : level.uploads) {
            whole(StepKind::Reserve, t, StepClock::Upload);
            whole(StepKind::Upload, t, StepClock::Upload);
        }
        if (!level.deviceOps.empty()) {
            DeviceStep launch = makeStep(StepKind::Launch, StepClock::None);
            for (uint32_t o : level.deviceOps) {
                whole(StepKind::Reserve, p.ops[o].output, StepClock::None);
                launch.tasks.push_back(wholeOpTask(p, o));
            }
            steps.push_back(std::move(launch));
        }
        // Fioretto et al. 2015 Fig. 2: the host's buckets of this level run while the device works
        // on its own.
        steps.push_back(makeStep(StepKind::HostOps, StepClock::None));
        steps.back().ops = level.hostOps;
        if (!level.deviceOps.empty())
            steps.push_back(makeStep(StepKind::Wait, StepClock::None));
        for (uint32_t t : level.downloads)
            whole(StepKind::Download, t, StepClock::Download);
    }
    for (uint32_t t : plan.finalDownloads)
        whole(StepKind::Download, t, StepClock::Download);
    return steps;
}

Result<std::vector<std::vector<double>>> runTensorProgramSplit(const TensorProgram &p,
                                                               const SplitPlan &plan,
                                                               TensorDevice *device,
                                                               unsigned hostThreads) {
    ZBDDC_TRY(p.verify());
    if (plan.side.size() != p.ops.size() || plan.levels.size() != p.levels.size())
        return error("internal error: the split plan is not this program's");
    if (plan.deviceOps > 0 && !device)
        return error("internal error: a split plan with device ops and no device");
    StepTimes times{};
    TensorDevice *const devices[] = {device};
    StepTargets targets;
    targets.devices = devices;
    targets.hostThreads = hostThreads;
    return runDeviceSteps(p, splitSteps(p, plan), targets, times);
}

} // namespace zbddc
