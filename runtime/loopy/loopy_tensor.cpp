#include "runtime/loopy/loopy_tensor.h"

#include "runtime/tensor/tensor_executor.h"
#include "support/timer.h"

#include <algorithm>
#include <cmath>

namespace zbddc {

namespace {

// The sweep of these instances, their evidence written into its indicators.
Result<LoopyProgram> lowerBatch(const FactorGraph &g, std::span<const Evidence> cases,
                                bool maxProduct) {
    LoopyLowering lowering;
    lowering.maxProduct = maxProduct;
    lowering.batch = static_cast<uint32_t>(cases.size());
    for (const Evidence &e : cases)
        for (uint32_t v = 0; v < e.states.size(); ++v)
            if (e.states[v] != kNone)
                lowering.observed.push_back(v);
    std::sort(lowering.observed.begin(), lowering.observed.end());
    lowering.observed.erase(std::unique(lowering.observed.begin(), lowering.observed.end()),
                            lowering.observed.end());
    auto lowered = lowerLoopySweep(g, lowering);
    if (lowered)
        for (uint32_t b = 0; b < cases.size(); ++b)
            lowered->setEvidence(b, cases[b].states);
    return lowered;
}

// Instance b's messages in the dedicated route's layout and log space (graph.messageOffset).
void messagesOf(const FactorGraph &g, const LoopyProgram &lp,
                const std::vector<std::vector<double>> &in, uint32_t b, LoopyCase &c) {
    c.messages.resize(g.messageEntries());
    std::vector<uint32_t> x(g.numVariables(), 0);
    for (uint32_t e = 0; e < g.numEdges(); ++e) {
        const uint32_t v = g.edgeVariable[e];
        bool alive = false;
        for (x[v] = 0; x[v] < g.domainSizes[v]; ++x[v]) {
            const double p = in[e][lp.rowOf(lp.messageIn[e], b, x)];
            c.messages[g.messageOffset[e] + x[v]] = p > 0 ? std::log(p) : -INFINITY;
            alive |= p > 0;
        }
        c.vanished |= !alive;
    }
}

// One batch: sweeps until every instance converged or the limit, then finishLoopyCase.
Status runBatch(TensorExecutor &executor, const FactorGraph &g, std::span<const Evidence> cases,
                const LoopyOptions &o, LoopyTensorRun &out, uint32_t &batchSweeps,
                std::span<LoopyCase> results) {
    const auto t0 = std::chrono::steady_clock::now();
    const bool sum = o.semiring == LoopySemiring::SumProduct;
    auto lowered = lowerBatch(g, cases, !sum);
    if (!lowered)
        return lowered.error();
    const LoopyProgram &lp = *lowered;
    auto prepared = executor.prepare(lp.program);
    if (!prepared)
        return prepared.error();
    PreparedTensorProgram &sweep = **prepared;
    out.prepareMs += msSince(t0);

    const auto t1 = std::chrono::steady_clock::now();
    const uint32_t batch = lp.batch;
    const std::vector<std::pair<uint32_t, uint32_t>> pairs = lp.swapPairs();
    std::vector<double> weight(batch, o.damping);
    std::vector<uint8_t> running(batch, 1);
    size_t left = batch;
    std::vector<double> residual;
    uint32_t sweeps = 0;
    auto runSweep = [&]() -> Status {
        if (Status s = sweep.setInput(lp.weight, weight); !s)
            return s;
        auto run = sweep.run();
        if (!run)
            return run.error();
        ++sweeps;
        residual = std::move(run->tables[lp.residual]);
        if (residual.empty()) // a graph without edges: nothing moves
            residual.assign(batch, 0.0);
        out.device = run->device;
        return Ok{};
    };
    for (uint32_t it = 1; it <= o.maxIterations && left > 0; ++it) {
        if (Status s = runSweep(); !s)
            return s;
        bool someConverged = false;
        for (uint32_t b = 0; b < batch; ++b) {
            if (!running[b])
                continue;
            LoopyCase &c = results[b];
            c.iterations = it;
            c.maxResidual = residual[b];
            if (residual[b] < o.tolerance) { // keeps this sweep's inputs, as the dedicated route
                c.converged = true;
                running[b] = 0;
                weight[b] = 1;
                --left;
                someConverged = true;
            }
        }
        if (left == 0)
            break;
        if (someConverged) // again, the converged instances kept where they are
            if (Status s = runSweep(); !s)
                return s;
        if (Status s = sweep.swapTables(pairs); !s)
            return s;
    }
    out.sweeps += sweeps;
    out.sweepMs += msSince(t1);
    batchSweeps = std::max(batchSweeps, sweeps);
    auto messages = sweep.readTables(lp.messageIn);
    if (!messages)
        return messages.error();
    for (uint32_t b = 0; b < batch; ++b) {
        LoopyCase &c = results[b];
        messagesOf(g, lp, *messages, b, c);
        if (c.vanished) {
            c.converged = false;
            continue;
        }
        finishLoopyCase(g, cases[b], o.semiring, c);
    }
    return Ok{};
}

} // namespace

Result<LoopyTensorRun> runLoopyTensor(const FactorGraph &graph, std::span<const Evidence> cases,
                                      const LoopyOptions &options, std::string_view name) {
    if (options.schedule != LoopySchedule::Flooding)
        return error("the loopy BP tensor program runs flooding sweeps; the residual schedule "
                     "runs on the dedicated messages (--lbp-program messages)");
    TensorExecutorOptions eo;
    eo.threads = options.threads;
    auto executor = makeTensorExecutor(name, eo);
    if (!executor)
        return executor.error();
    LoopyTensorRun out;
    out.cases.resize(cases.size());
    const size_t perProgram = name == "cuda" ? kLoopyTensorBatchGpu : kLoopyTensorBatchCpu;
    uint32_t batchSweeps = 0;
    for (size_t first = 0; first < cases.size(); first += perProgram) {
        const size_t n = std::min(perProgram, cases.size() - first);
        if (Status s = runBatch(**executor, graph, cases.subspan(first, n), options, out,
                                batchSweeps, std::span(out.cases).subspan(first, n));
            !s)
            return s.error();
    }
    out.sweepMs = batchSweeps ? out.sweepMs / batchSweeps : 0;
    return out;
}

} // namespace zbddc
