#include "runtime/loopy/loopy_tasks.h"

#include "runtime/loopy/loopy_gpu.h"
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

namespace {

// For each state s of v: Σ over v's factors of the best log φ_f with v = s that agrees with the
// variables decided so far (x[u] != kNone).
std::vector<double> consistentScores(const FactorGraph &g, uint32_t v,
                                     const std::vector<uint32_t> &x) {
    std::vector<double> total(g.domainSizes[v], 0.0), best;
    std::vector<uint32_t> digits;
    for (uint32_t i = g.variableEdgeStart[v]; i < g.variableEdgeStart[v + 1]; ++i) {
        const LoopyFactor &f = g.factors[g.edgeFactor[g.variableEdges[i]]];
        best.assign(total.size(), -INFINITY);
        digits.resize(f.scope.size());
        for (uint64_t row = 0; row < f.logValues.size(); ++row) {
            uint64_t rest = row;
            for (size_t p = f.scope.size(); p-- > 0;) {
                digits[p] = uint32_t(rest % g.domainSizes[f.scope[p]]);
                rest /= g.domainSizes[f.scope[p]];
            }
            bool agrees = true;
            uint32_t s = 0;
            for (size_t p = 0; p < f.scope.size(); ++p) {
                if (f.scope[p] == v)
                    s = digits[p];
                else if (x[f.scope[p]] != kNone)
                    agrees &= x[f.scope[p]] == digits[p];
            }
            if (agrees)
                best[s] = std::max(best[s], f.logValues[row]);
        }
        for (size_t s = 0; s < total.size(); ++s)
            total[s] += best[s];
    }
    return total;
}

// Each variable in turn takes its best state by max-marginal; among states whose max-marginals
// tie (within rounding), the one whose factors can still agree best with the states decided
// before. Ties are common where hard constraints leave every state some support (a .wcsp's
// all-different), and on trees with several optima this keeps the choices consistent.
std::vector<uint32_t> decodeMaxMarginals(const FactorGraph &g, const std::vector<double> &beliefs) {
    constexpr double kTie = 1e-9;
    std::vector<uint32_t> x(g.numVariables(), kNone);
    std::vector<uint32_t> tied;
    for (uint32_t v = 0; v < g.numVariables(); ++v) {
        const auto first = beliefs.begin() + g.stateOffset[v];
        const double top = *std::max_element(first, first + g.domainSizes[v]);
        tied.clear();
        for (uint32_t s = 0; s < g.domainSizes[v]; ++s)
            if (first[s] >= top * (1 - kTie))
                tied.push_back(s);
        x[v] = tied[0];
        if (tied.size() == 1)
            continue;
        const std::vector<double> score = consistentScores(g, v, x);
        for (uint32_t s : tied)
            if (score[s] > score[x[v]])
                x[v] = s;
    }
    return x;
}

} // namespace

std::vector<Result<TaskResult>> runLoopyTasks(const FactorGraph &g, Task task,
                                              std::span<const Evidence> cases, LoopyOptions options,
                                              DeviceKind where) {
    options.semiring = task == Task::Mpe ? LoopySemiring::MaxProduct : LoopySemiring::SumProduct;
    const SteadyTime start = std::chrono::steady_clock::now();
    std::vector<LoopyCase> runs;
    DeviceReport device;
    std::string why;
    bool ran = false;
    if (where != DeviceKind::Cpu) {
        auto gpu = runLoopyBpGpu(g, cases, options);
        if (gpu) {
            runs = std::move(gpu->cases);
            device = {DeviceKind::Cuda, gpu->device,
                      "loopy BP, " + std::string(loopyUpdateOrderName(options.updateOrder)) + "; " +
                          gpu->design};
            ran = true;
        } else {
            why = gpu.error().message;
        }
    }
    if (!ran) {
        runs = runLoopyBp(g, cases, options);
        device = {DeviceKind::Cpu, "",
                  "loopy BP, " + std::string(loopyUpdateOrderName(options.updateOrder))};
        if (where != DeviceKind::Cpu)
            device.addNote("not on the GPU: " + why);
    }
    device.arithmetic = Numeric::Float64;
    const double perCaseMs = msSince(start) / std::max<size_t>(1, cases.size());
    std::vector<Result<TaskResult>> out;
    for (LoopyCase &c : runs) {
        if (c.vanished) {
            out.push_back(errorAt(g.file, 0,
                                  "loopy BP: a message lost every state; the "
                                  "evidence has no support in the model"));
            continue;
        }
        TaskResult r;
        r.task = task;
        r.device = device;
        r.approximate = ConvergenceReport{c.iterations, c.converged, c.maxResidual};
        r.timeMs = perCaseMs;
        double logValue = c.logPartition;
        if (task == Task::Mar) {
            for (uint32_t v = 0; v < g.numVariables(); ++v)
                r.marginals.push_back(std::span(c.beliefs.data() + g.stateOffset[v],
                                                c.beliefs.data() + g.stateOffset[v + 1]));
            logValue = 0;
        } else if (task == Task::Mpe) {
            r.assignment = decodeMaxMarginals(g, c.beliefs);
            logValue = assignmentLogScore(g, r.assignment);
        }
        r.value = std::exp(logValue);
        r.log10 = logValue / std::log(10.0);
        out.push_back(std::move(r));
    }
    return out;
}

} // namespace zbddc
