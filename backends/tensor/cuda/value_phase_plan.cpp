#include "backends/tensor/cuda/value_phase_plan.h"

#include <algorithm>

namespace zbddc::cuda {

Result<std::vector<uint32_t>> buildValuePhasePlan(const TensorProgram &program,
                                                  const std::vector<uint8_t> *pinned) {
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
        // The variables this op picks: its eliminated ones but the pinned (they keep their value
        // and are read like any assigned variable); an op that picks none is left out.
        std::vector<uint32_t> vars;
        for (uint32_t v : op.vars)
            if (!pinned || !(*pinned)[v])
                vars.push_back(v);
        if (vars.empty())
            continue;
        ++plan[opsAt];
        plan.push_back(static_cast<uint32_t>(vars.size()));
        uint64_t stride = 1;
        std::vector<uint64_t> strides(vars.size());
        for (size_t k = vars.size(); k-- > 0;) {
            strides[k] = stride;
            stride *= program.domainSizes[vars[k]];
        }
        for (size_t k = 0; k < vars.size(); ++k)
            plan.insert(plan.end(), {vars[k], program.domainSizes[vars[k]],
                                     static_cast<uint32_t>(strides[k]),
                                     static_cast<uint32_t>(strides[k] >> 32)});
        plan.push_back(static_cast<uint32_t>(op.inputs.size()));
        for (uint32_t in : op.inputs) {
            const Table &t = program.tables[in];
            plan.insert(plan.end(), {in, static_cast<uint32_t>(t.scope.size())});
            for (size_t s = 0; s < t.scope.size(); ++s) {
                const auto k = std::find(vars.begin(), vars.end(), t.scope[s]);
                plan.push_back(k == vars.end()
                                   ? t.scope[s]
                                   : kEliminated | static_cast<uint32_t>(k - vars.begin()));
                plan.push_back(t.domains[s]);
            }
        }
    }
    return plan;
}

} // namespace zbddc::cuda
