#include "backends/tensor/devices/slice_layout.h"

#include <algorithm>

namespace zbddc {

std::optional<TensorProgram> relayoutForSlicing(const TensorProgram &program, uint32_t devices,
                                                const MultiDeviceOptions &options) {
    if (devices < 2)
        return std::nullopt;
    // The scopes as they become (earlier outputs' new layouts lead later choices); the program is
    // copied only where one changed.
    std::vector<std::vector<uint32_t>> scopes;
    for (const Table &t : program.tables)
        scopes.push_back(t.scope);
    std::vector<uint32_t> rotated;
    for (const std::vector<uint32_t> &level : program.levels)
        for (uint32_t o : level) {
            const TensorOp &op = program.ops[o];
            std::vector<uint32_t> &out = scopes[op.output];
            if (out.size() < 2 || !slicedAcrossDevices(program, o, devices, options))
                continue;
            // Rows the shares read when the output leads with x: an input leading with x in
            // slices (its rows once in all), any other whole on every device.
            const auto readRows = [&](uint32_t x) {
                uint64_t rows = 0;
                for (uint32_t in : op.inputs) {
                    const uint64_t entries = program.tables[in].entries();
                    rows += !scopes[in].empty() && scopes[in][0] == x ? entries : entries * devices;
                }
                return rows;
            };
            auto best = out.begin();
            uint64_t least = readRows(out[0]);
            for (uint32_t in : op.inputs) {
                if (scopes[in].empty())
                    continue;
                const auto lead = std::find(out.begin(), out.end(), scopes[in][0]);
                if (lead == out.end())
                    continue; // eliminated here: no share of the output fixes it
                if (const uint64_t rows = readRows(*lead); rows < least)
                    best = lead, least = rows;
            }
            if (best != out.begin()) {
                std::rotate(out.begin(), best, best + 1);
                rotated.push_back(op.output);
            }
        }
    if (rotated.empty())
        return std::nullopt;
    TensorProgram p = program;
    for (uint32_t t : rotated) {
        p.tables[t].scope = scopes[t];
        for (size_t i = 0; i < scopes[t].size(); ++i)
            p.tables[t].domains[i] = program.domainSizes[scopes[t][i]];
    }
    return p;
}

Result<MultiDevicePlan> planWithSliceLayouts(const TensorProgram &program, uint32_t devices,
                                             const MultiDeviceOptions &options,
                                             const PlanFor &planFor,
                                             std::optional<TensorProgram> &relaid) {
    relaid.reset();
    auto plan = planFor(program);
    if (!plan)
        return plan;
    std::optional<TensorProgram> other = relayoutForSlicing(program, devices, options);
    if (!other)
        return plan;
    auto otherPlan = planFor(*other);
    if (!otherPlan || otherPlan->peerBytes >= plan->peerBytes)
        return plan;
    relaid = std::move(other);
    return otherPlan;
}

} // namespace zbddc
