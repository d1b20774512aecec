#include "backends/tensor/cuda/value_phase_plan.h"

#include <algorithm>

namespace zbddc::cuda {

Result<std::vector<uint32_t>> buildValuePhasePlan(const TensorProgram &program) {
    constexpr uint32_t kEliminated = 0x80000000u;
    if (program.domainSizes.size() >= kEliminated)
        return error("the VALUE phase plan holds at most 2^31 variables");
    std::vector<uint32_t> plan;
    plan.push_back(static_cast<uint32_t>(program.results.size()));
    plan.insert(plan.end(), program.results.begin(), program.results.end());
    const size_t opsAt = plan.size();
    plan.push_back(0);
    for (size_t o = program.ops.size(); o-- > 0;) {
        const TensorOp &op = program.ops[o];
        if (op.kind != TensorOpKind::Marginalize && op.kind != TensorOpKind::EliminateBucket)
            continue;
        ++plan[opsAt];
        plan.push_back(static_cast<uint32_t>(op.vars.size()));
        uint64_t stride = 1;
        std::vector<uint64_t> strides(op.vars.size());
        for (size_t k = op.vars.size(); k-- > 0;) {
            strides[k] = stride;
            stride *= program.domainSizes[op.vars[k]];
        }
        for (size_t k = 0; k < op.vars.size(); ++k)
            plan.insert(plan.end(), {op.vars[k], program.domainSizes[op.vars[k]],
                                     static_cast<uint32_t>(strides[k]),
                                     static_cast<uint32_t>(strides[k] >> 32)});
        plan.push_back(static_cast<uint32_t>(op.inputs.size()));
        for (uint32_t in : op.inputs) {
            const Table &t = program.tables[in];
            plan.insert(plan.end(), {in, static_cast<uint32_t>(t.scope.size())});
            for (size_t s = 0; s < t.scope.size(); ++s) {
                const auto k = std::find(op.vars.begin(), op.vars.end(), t.scope[s]);
                plan.push_back(k == op.vars.end()
                                   ? t.scope[s]
                                   : kEliminated | static_cast<uint32_t>(k - op.vars.begin()));
                plan.push_back(t.domains[s]);
            }
        }
    }
    return plan;
}

} // namespace zbddc::cuda
