#include "backends/tensor/cuda/device/op_profile.h"

#include "backends/tensor/cuda/codegen/tensor_kernels.h"

#include <algorithm>
#include <memory>

namespace zbddc::cuda {

namespace {
// An op's time is the fastest of this many launches (the first also loads its module).
constexpr int kProfileRepeats = 3;

// One profile line for op `op` of level `level` that took `ms`.
void writeOpProfileLine(std::FILE *f, const TensorProgram &program, uint32_t op, uint32_t level,
                        double ms, uint64_t valueBytes) {
    const uint64_t eliminated = eliminatedValues(program, program.ops[op]);
    const double gbPerS =
        ms > 0 ? static_cast<double>(opTableBytes(program, op, valueBytes)) / (ms * 1e6) : 0;
    std::fprintf(f, "%u\t%s\t%u\t%llu\t%llu\t%.4f\t%.2f GB/s\n", op,
                 tensorOpKindName(program.ops[op].kind), level,
                 (unsigned long long)program.tables[program.ops[op].output].entries(),
                 (unsigned long long)eliminated, ms, gbPerS);
}
} // namespace

uint64_t opTableBytes(const TensorProgram &program, uint32_t op, uint64_t valueBytes) {
    const TensorOp &o = program.ops[op];
    uint64_t entries = program.tables[o.output].entries();
    for (uint32_t in : o.inputs)
        entries += program.tables[in].entries();
    return entries * valueBytes;
}

std::vector<DeviceStep> profileSteps(const TensorProgram &program) {
    std::vector<DeviceStep> steps;
    for (uint32_t l = 0; l < program.levels.size(); ++l)
        for (uint32_t o : program.levels[l])
            for (int rep = 0; rep < kProfileRepeats; ++rep) {
                steps.push_back(makeStep(StepKind::Launch, StepClock::Compute));
                steps.back().tasks = {wholeOpTask(program, o)};
                steps.push_back(makeStep(StepKind::Wait, StepClock::Compute, 0, l)); // its level
                steps.back().ops = {o};
            }
    return steps;
}

std::function<void(const DeviceStep &, double)>
profileLines(std::FILE *f, const TensorProgram &program, uint64_t valueBytes) {
    struct Op {
        double launched = 0, best = 0;
        int repeats = 0;
    };
    return [f, &program, valueBytes, op = std::make_shared<Op>()](const DeviceStep &s, double ms) {
        if (s.kind == StepKind::Launch)
            op->launched = ms;
        if (s.kind != StepKind::Wait || s.ops.empty())
            return;
        const double t = op->launched + ms;
        op->best = op->repeats == 0 ? t : std::min(op->best, t);
        if (++op->repeats < kProfileRepeats)
            return;
        writeOpProfileLine(f, program, s.ops[0], s.table, op->best, valueBytes);
        op->repeats = 0;
    };
}

} // namespace zbddc::cuda
