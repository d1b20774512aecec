#include "backends/cuda_tensor/chunk_plan.h"

#include <string>

namespace zbddc {

namespace {
constexpr uint64_t kEntryBytes = sizeof(double);

std::string mib(uint64_t bytes) {
    return std::to_string(bytes / (1024 * 1024)) + "." +
           std::to_string(bytes % (1024 * 1024) * 10 / (1024 * 1024)) + " MiB";
}
} // namespace

Result<ChunkPlan> planChunks(const TensorProgram &program, uint64_t budgetBytes,
                             uint32_t maxInFlight) {
    ChunkPlan plan;
    plan.budgetBytes = budgetBytes;
    uint64_t total = 0;
    for (const Table &t : program.tables)
        total += t.entries() * kEntryBytes;
    if (total <= budgetBytes)
        return plan;
    plan.outOfCore = true;
    maxInFlight = std::max(maxInFlight, 1u);
    plan.ops.resize(program.ops.size());
    for (uint32_t o = 0; o < program.ops.size(); ++o) {
        const TensorOp &op = program.ops[o];
        const Table &out = program.tables[op.output];
        OpChunkPlan &p = plan.ops[o];
        for (uint32_t in : op.inputs)
            p.inputBytes += program.tables[in].entries() * kEntryBytes;
        if (p.inputBytes >= budgetBytes)
            return error("op " + std::to_string(o) + "'s inputs need " + mib(p.inputBytes) +
                         ", beyond the device budget of " + mib(budgetBytes) +
                         "; chunking inputs is not implemented");
        const uint64_t room = budgetBytes - p.inputBytes;
        // Fix more leading variables until `inFlight` chunks fit in the room left; prefer the
        // largest chunks that still allow two in flight (copy/compute overlap), else one.
        bool placed = false;
        for (uint32_t k = 0; k <= out.scope.size() && !placed; ++k) {
            uint64_t rows = 1;
            for (size_t i = k; i < out.scope.size(); ++i)
                rows *= out.domains[i];
            const uint64_t fit = room / (rows * kEntryBytes);
            const uint64_t chunks = out.entries() / rows;
            if (fit >= std::min<uint64_t>(2, chunks) || (fit >= 1 && k == out.scope.size())) {
                p.fixedVars = k;
                p.chunkRows = rows;
                p.chunks = chunks;
                p.inFlight = static_cast<uint32_t>(std::min<uint64_t>({fit, maxInFlight, chunks}));
                placed = true;
            }
        }
        if (!placed)
            return error("op " + std::to_string(o) + " leaves no room for one output row within " +
                         mib(budgetBytes));
    }
    return plan;
}

} // namespace zbddc
