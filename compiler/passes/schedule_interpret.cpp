#include "compiler/passes/schedule_interpret.h"

#include <string>

namespace zbddc {

Result<std::vector<double>> interpretSchedule(const Schedule &s, std::span<const double> x,
                                              Semiring semiring) {
    if (x.size() != s.numInputs)
        return error("expected " + std::to_string(s.numInputs) + " inputs, got " +
                     std::to_string(x.size()));
    if (Status st = verify(s); !st)
        return st.error();
    const SemiringOps ring{semiring};
    std::vector<double> v(s.numSlots, ring.zero());
    v[kSlotOne] = ring.one();
    for (size_t i = 0; i < s.constants.size(); ++i)
        v[kSlotConstBase + i] = s.constants[i];
    for (size_t i = 0; i < x.size(); ++i)
        v[s.inputBase() + i] = x[i];

    std::vector<double> stack, results;
    for (uint32_t l = 0; l < s.numLevels(); ++l) {
        results.clear();
        for (uint32_t b = s.levelBlockBegin[l]; b < s.levelBlockBegin[l + 1]; ++b) {
            const uint32_t *loads = s.blockLoads.data() + s.blockLoadBegin[b];
            for (uint32_t i = s.blockOpBegin[b]; i < s.blockOpBegin[b + 1]; ++i) {
                const uint32_t t = s.opType[i];
                uint32_t k = s.opOperandBegin[i];
                stack.clear();
                for (uint32_t step : s.typeTemplate(t)) {
                    switch (static_cast<TemplateStep>(step)) {
                    case TemplateStep::LoadF:
                        stack.push_back(v[s.operands[k++]]);
                        break;
                    case TemplateStep::LoadX:
                        stack.push_back(
                            v[s.blockPreloads(b) ? loads[s.operands[k]] : s.operands[k]]);
                        ++k;
                        break;
                    case TemplateStep::Times:
                    case TemplateStep::Plus: {
                        const double q = stack.back();
                        stack.pop_back();
                        stack.back() = step == static_cast<uint32_t>(TemplateStep::Times)
                                           ? ring.times(stack.back(), q)
                                           : ring.plus(stack.back(), q);
                        break;
                    }
                    }
                }
                results.push_back(stack.back());
            }
        }
        for (uint32_t i = s.levelOpBegin[l]; i < s.levelOpBegin[l + 1]; ++i)
            v[s.opOut[i]] = results[i - s.levelOpBegin[l]];
    }
    std::vector<double> out;
    for (uint32_t o : s.outputs)
        out.push_back(v[o]);
    return out;
}

} // namespace zbddc
