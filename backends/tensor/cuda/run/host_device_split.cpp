#include "backends/tensor/cuda/run/host_device_split.h"

#include "backends/tensor/cpu/tensor_cpu.h"
#include "support/timer.h"

#include <algorithm>
#include <chrono>

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

Result<std::vector<std::vector<double>>>
runTensorProgramSplit(const TensorProgram &p, const SplitPlan &plan, TensorDevice *device,
                      unsigned hostThreads, SplitStats *stats) {
    if (Status s = p.verify(); !s)
        return s.error();
    if (plan.side.size() != p.ops.size() || plan.levels.size() != p.levels.size())
        return error("internal error: the split plan is not this program's");
    if (plan.deviceOps > 0 && !device)
        return error("internal error: a split plan with device ops and no device");
    SplitStats local;
    SplitStats &st = stats ? *stats : local;
    std::vector<std::vector<double>> computed(p.tables.size());
    auto complete = denseInputTables(p);
    if (!complete)
        return complete.error();
    const std::vector<std::vector<double>> &inputs = *complete;
    std::vector<const double *> data(p.tables.size(), nullptr);
    for (size_t t = 0; t < p.tables.size(); ++t)
        if (p.tables[t].input)
            data[t] = inputs[t].data();
    auto hostValues = [&](uint32_t t) -> const std::vector<double> & {
        return p.tables[t].input ? inputs[t] : computed[t];
    };
    auto whole = [&](uint32_t t) { return RowSpan{0, p.tables[t].entries()}; };
    auto fetch = [&](uint32_t t) -> Status {
        computed[t].resize(p.tables[t].entries()); // the device copies into the host table
        if (Status s = device->download(t, 0, computed[t]); !s)
            return s;
        data[t] = computed[t].data();
        return Ok{};
    };
    for (const SplitLevel &level : plan.levels) {
        auto t0 = std::chrono::steady_clock::now();
        for (uint32_t t : level.uploads) {
            if (Status s = device->reserve(t, whole(t)); !s)
                return s.error();
            if (Status s = device->upload(t, 0, hostValues(t)); !s)
                return s.error();
        }
        st.transferMs += msSince(t0);
        if (!level.deviceOps.empty()) {
            std::vector<DeviceTask> tasks;
            for (uint32_t o : level.deviceOps) {
                if (Status s = device->reserve(p.ops[o].output, whole(p.ops[o].output)); !s)
                    return s.error();
                tasks.push_back(wholeOpTask(p, o));
            }
            if (Status s = device->launch(tasks); !s)
                return s.error();
        }
        // Fioretto et al. 2015 Fig. 2: the host's buckets of this level run while the device works
        // on its own.
        t0 = std::chrono::steady_clock::now();
        if (Status s = runTensorOpsCpu(p, level.hostOps, data, computed, hostThreads); !s)
            return s.error();
        st.hostMs += msSince(t0);
        t0 = std::chrono::steady_clock::now();
        if (!level.deviceOps.empty())
            if (Status s = device->wait(); !s)
                return s.error();
        st.waitMs += msSince(t0);
        t0 = std::chrono::steady_clock::now();
        for (uint32_t t : level.downloads)
            if (Status s = fetch(t); !s)
                return s.error();
        st.transferMs += msSince(t0);
    }
    const auto t0 = std::chrono::steady_clock::now();
    for (uint32_t t : plan.finalDownloads)
        if (Status s = fetch(t); !s)
            return s.error();
    st.transferMs += msSince(t0);
    return computed;
}

} // namespace zbddc
