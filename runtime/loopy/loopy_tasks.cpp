#include "runtime/loopy/loopy_tasks.h"

#include "support/timer.h"

#include <algorithm>
#include <cmath>

namespace zbddc {

double assignmentLogScore(const FactorGraph &g, std::span<const uint32_t> x) {
    double total = 0;
    for (const LoopyFactor &f : g.factors) {
        uint64_t row = 0;
        for (uint32_t v : f.scope)
            row = row * g.domainSizes[v] + x[v];
        total += f.logValues[row];
    }
    return total;
}

std::vector<Result<TaskResult>> runLoopyTasks(const FactorGraph &g, Task task,
                                              std::span<const Evidence> cases,
                                              LoopyOptions options) {
    options.semiring = task == Task::Mpe ? LoopySemiring::MaxProduct : LoopySemiring::SumProduct;
    const SteadyTime start = std::chrono::steady_clock::now();
    std::vector<LoopyCase> runs = runLoopyBp(g, cases, options);
    const double perCaseMs = msSince(start) / std::max<size_t>(1, cases.size());
    std::vector<Result<TaskResult>> out;
    for (LoopyCase &c : runs) {
        if (c.vanished) {
            out.push_back(errorAt(g.file, 0, "loopy BP: a message lost every state; the "
                                             "evidence has no support in the model"));
            continue;
        }
        TaskResult r;
        r.task = task;
        r.device = "cpu (loopy BP, " + std::string(loopyScheduleName(options.schedule)) + ")";
        r.approximate = ConvergenceReport{c.iterations, c.converged, c.maxResidual};
        r.timeMs = perCaseMs;
        double logValue = c.logPartition;
        if (task == Task::Mar) {
            for (uint32_t v = 0; v < g.numVariables(); ++v)
                r.marginals.emplace_back(c.beliefs.begin() + g.stateOffset[v],
                                         c.beliefs.begin() + g.stateOffset[v + 1]);
            logValue = 0;
        } else if (task == Task::Mpe) {
            for (uint32_t v = 0; v < g.numVariables(); ++v) {
                const auto first = c.beliefs.begin() + g.stateOffset[v];
                r.assignment.push_back(static_cast<uint32_t>(
                    std::max_element(first, c.beliefs.begin() + g.stateOffset[v + 1]) - first));
            }
            logValue = assignmentLogScore(g, r.assignment);
        }
        r.value = std::exp(logValue);
        r.log10 = logValue / std::log(10.0);
        out.push_back(std::move(r));
    }
    return out;
}

} // namespace zbddc
