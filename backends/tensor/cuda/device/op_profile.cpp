#include "backends/tensor/cuda/device/op_profile.h"

#include <memory>

namespace zbddc::cuda {

namespace {
// An op's time is the fastest of this many launches: the first also loads its module (a 25-row
// op's first launch took 57 µs on an H200), and an op writes the same output each time.
constexpr int kProfileRepeats = 3;
} // namespace

uint64_t opTableBytes(const TensorProgram &program, uint32_t op, uint64_t valueBytes) {
    const TensorOp &o = program.ops[op];
    uint64_t entries = program.tables[o.output].entries();
    for (uint32_t in : o.inputs)
        entries += program.tables[in].entries();
    return entries * valueBytes;
}

void writeOpProfileLine(std::FILE *f, const TensorProgram &program, uint32_t op, uint32_t level,
                        double ms, uint64_t valueBytes) {
    uint64_t eliminated = 1;
    for (uint32_t v : program.ops[op].vars)
        eliminated *= program.domainSizes[v];
    const double gbPerS = ms > 0 ? static_cast<double>(opTableBytes(program, op, valueBytes)) / (ms * 1e6) : 0;
    std::fprintf(f, "%u\t%s\t%u\t%llu\t%llu\t%.4f\t%.2f GB/s\n", op,
                 tensorOpKindName(program.ops[op].kind), level,
                 (unsigned long long)program.tables[program.ops[op].output].entries(),
                 (unsigned long long)eliminated, ms, gbPerS);
}

Status profileOps(Device &d, const TensorProgram &program, const EnqueueOp &enqueue,
                  const char *path, uint64_t valueBytes) {
    std::unique_ptr<std::FILE, int (*)(std::FILE *)> f(std::fopen(path, "a"), std::fclose);
    if (!f)
        return error(std::string(path) + ": cannot open the GPU profile for appending");
    auto stream = d.createStream();
    if (!stream)
        return stream.error();
    Status result = Ok{};
    for (uint32_t l = 0; l < program.levels.size() && result; ++l)
        for (uint32_t o : program.levels[l]) {
            double best = 0;
            for (int rep = 0; rep < kProfileRepeats && result; ++rep) {
                auto ms = d.time(*stream, [&] { return enqueue(o, *stream); });
                if (!ms)
                    result = ms.error();
                else if (rep == 0 || *ms < best)
                    best = *ms;
            }
            if (!result)
                break;
            writeOpProfileLine(f.get(), program, o, l, best, valueBytes);
        }
    (void)d.destroyStream(*stream);
    return result;
}

} // namespace zbddc::cuda
