#include "backends/tensor/devices/chunk_steps.h"

#include <algorithm>
#include <map>

namespace zbddc {

std::vector<DeviceStep> chunkSteps(const TensorProgram &p, const ChunkPlan &plan) {
    std::vector<DeviceStep> steps;
    const auto add = [&](StepKind kind, StepClock clock, uint32_t table, RowSpan rows = {}) {
        steps.push_back(makeStep(kind, clock, 0, table, rows));
        return &steps.back();
    };
    for (const std::vector<uint32_t> &level : p.levels)
        for (const uint32_t o : level) {
            const TensorOp &op = p.ops[o];
            const OpChunkPlan &cp = plan.ops[o];
            std::map<uint32_t, RowSpan> held; // this op's tables on the device
            // Table t's rows become `rows` (sliced inputs: uploaded from the host).
            const auto hold = [&](uint32_t t, RowSpan rows, bool upload) {
                auto [at, fresh] = held.try_emplace(t, rows);
                if (!fresh && at->second == rows)
                    return;
                if (!fresh)
                    add(StepKind::Release, StepClock::Upload, t);
                at->second = rows;
                add(StepKind::Reserve, StepClock::Upload, t, rows);
                if (upload)
                    add(StepKind::Upload, StepClock::Upload, t, rows);
            };
            for (size_t j = 0; j < op.inputs.size(); ++j)
                if (!cp.inputSliced[j])
                    hold(op.inputs[j], {0, p.tables[op.inputs[j]].entries()}, true);
            for (uint64_t c = 0; c < cp.chunks; ++c) {
                const RowSpan chunk{c * cp.chunkRows, cp.chunkRows};
                for (uint64_t s = 0; s < cp.elimSlices; ++s) {
                    // An input read at several positions is held over all their rows.
                    std::map<uint32_t, RowSpan> reads;
                    for (size_t j = 0; j < op.inputs.size(); ++j) {
                        if (!cp.inputSliced[j])
                            continue;
                        reads[op.inputs[j]] =
                            hull(reads[op.inputs[j]], inputRange(p, o, cp, j, c, s));
                    }
                    for (const auto &[t, rows] : reads) // a table resident whole stays so
                        if (!held.contains(t) || held[t].rows != p.tables[t].entries())
                            hold(t, rows, true);
                    if (s == 0)
                        hold(op.output, chunk, false);
                    DeviceStep *launch = add(StepKind::Launch, StepClock::Compute, 0);
                    DeviceTask task{o, 0, chunk, {}};
                    if (cp.elimSlices > 1)
                        task.elim = {s * cp.elimValues, cp.elimValues};
                    launch->tasks = {task};
                }
                add(StepKind::Download, StepClock::Download, op.output, chunk);
            }
            for (const auto &[t, rows] : held)
                add(StepKind::Release, StepClock::Download, t);
            add(StepKind::Wait, StepClock::Compute, 0);
        }
    return steps;
}

} // namespace zbddc
