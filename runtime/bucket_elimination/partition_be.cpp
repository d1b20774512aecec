#include "runtime/bucket_elimination/partition_be.h"

#include "compiler/elimination/partition_program.h"
#include "runtime/bucket_elimination/run_by_levels.h"
#include "support/timer.h"

#include <chrono>

namespace zbddc {

namespace {

double tableBytes(const TensorProgram &p) {
    double entries = 0;
    for (const Table &t : p.tables)
        entries += t.input && t.sparse ? double(t.values.size()) : double(t.entries());
    return 8 * entries;
}

} // namespace

Result<PartitionAnswer> partitionFunction(const CostNetwork &network, const BeOptions &options,
                                          bool byLevels) {
    const auto start = std::chrono::steady_clock::now();
    PartitionAnswer answer;
    auto order = planElimination(network, options, answer.stats);
    if (!order)
        return order.error();
    auto t0 = std::chrono::steady_clock::now();
    auto built = buildPartitionProgram(network, *order, options.evidence);
    if (!built)
        return built.error();
    const TensorProgram &program = built->program;
    answer.stats.buildMs = msSince(t0);
    answer.stats.ops = program.ops.size();
    answer.stats.levels = program.levels.size();

    t0 = std::chrono::steady_clock::now();
    auto executor = makeTensorExecutor(options.executor, options.execution);
    if (!executor)
        return executor.error();
    if (!byLevels) {
        auto budget = (*executor)->memoryBudgetBytes();
        if (!budget)
            return budget.error();
        const double bytes = tableBytes(program);
        byLevels = bytes > double(*budget) ||
                   (options.execution.gpuBudgetBytes &&
                    bytes > double(options.execution.gpuBudgetBytes) && options.executor != "cpu" &&
                    options.executor != "reference");
    }
    TensorExecutor &run = **executor;
    auto byLevel = [&] {
        return runByLevels(program, [&](const TensorProgram &level) { return run.run(level); });
    };
    auto ran = byLevels ? byLevel() : run.run(program);
    if (!ran && !byLevels && options.execution.gpuBudgetBytes) {
        // The executor's own sizing (padding, scratch) can pass a budget the tables' bytes fit
        // in; level by level, each level's plain products go out of core where they must.
        byLevels = true;
        ran = byLevel();
    }
    if (!ran)
        return ran.error();
    answer.stats.solveMs = msSince(t0);
    answer.logZ = partitionLog(*built, ran->tables);
    answer.byLevels = byLevels;
    answer.device = std::move(ran->device);
    answer.stats.totalMs = msSince(start);
    return answer;
}

} // namespace zbddc
