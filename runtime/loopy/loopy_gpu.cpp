#include "runtime/loopy/loopy_gpu.h"

#include "backends/cuda/device_module.h"
#include "backends/cuda/loopy_kernels.h"
#include "support/threads.h"
#include "support/timer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

namespace zbddc {

using cuda::DeviceBuffer;
using cuda::DevicePtr;

Status loopyGpuUsable() {
    auto device = cuda::openDevice();
    if (!device)
        return device.error();
    return Ok{};
}

namespace {

constexpr unsigned kBlock = 256;

unsigned blocksFor(uint64_t threads) {
    return unsigned((threads + kBlock - 1) / kBlock);
}

// The graph's arrays on the device, shared by every instance.
struct DeviceGraph {
    DeviceBuffer logValues, tableOffset, factorEdgeStart, edgeVar, msgOffset, stateOffset, domains,
        varEdgeStart, varEdges;
    std::vector<DeviceBuffer> groupFactors;
};

Result<DeviceGraph> uploadGraph(cuda::Device &dev, const FactorGraph &g, const LoopyGpuPlan &plan) {
    std::vector<double> values;
    std::vector<uint64_t> tableOffset;
    for (const LoopyFactor &f : g.factors) {
        tableOffset.push_back(values.size());
        values.insert(values.end(), f.logValues.begin(), f.logValues.end());
    }
    DeviceGraph d;
    auto put = [&](DeviceBuffer &into, auto const &array) -> Status {
        auto buf = cuda::uploadArray(dev, array);
        if (!buf)
            return buf.error();
        into = std::move(*buf);
        return Ok{};
    };
    for (Status s : {put(d.logValues, values), put(d.tableOffset, tableOffset),
                     put(d.factorEdgeStart, g.factorEdgeStart), put(d.edgeVar, g.edgeVariable),
                     put(d.msgOffset, g.messageOffset), put(d.stateOffset, g.stateOffset),
                     put(d.domains, g.domainSizes), put(d.varEdgeStart, g.variableEdgeStart),
                     put(d.varEdges, g.variableEdges)})
        if (!s)
            return s.error();
    for (const LoopyFactorGroup &group : plan.groups) {
        d.groupFactors.emplace_back();
        if (Status s = put(d.groupFactors.back(), group.factors); !s)
            return s.error();
    }
    return d;
}

// The per-batch state: instance-fastest arrays.
struct DeviceBatch {
    DeviceBuffer evidence, msg, raw, upd, finite, zeros, active, commit, residualBits, vanished;
    DeviceBuffer edgeResidual, threshold; // the residual schedule only
};

Result<DeviceBatch> allocateBatch(cuda::Device &dev, const FactorGraph &g,
                                  std::span<const Evidence> cases, LoopySemiring semiring,
                                  bool residual) {
    const uint64_t B = cases.size(), M = g.messageEntries(), S = g.stateOffset.back();
    std::vector<uint32_t> evidence(g.numVariables() * B, kNone);
    for (uint64_t b = 0; b < B; ++b)
        for (uint64_t v = 0; v < std::min<uint64_t>(g.numVariables(), cases[b].states.size()); ++v)
            evidence[v * B + b] = cases[b].states[v];
    std::vector<double> start(M * B);
    for (uint32_t e = 0; e < g.numEdges(); ++e) {
        const uint32_t dv = g.domainSizes[g.edgeVariable[e]];
        const double uniform = semiring == LoopySemiring::SumProduct ? -std::log(double(dv)) : 0;
        std::fill(start.begin() + g.messageOffset[e] * B,
                  start.begin() + g.messageOffset[e + 1] * B, uniform);
    }
    DeviceBatch d;
    auto make = [&](DeviceBuffer &into, size_t bytes) -> Status {
        auto buf = dev.allocate(std::max<size_t>(bytes, 8));
        if (!buf)
            return buf.error();
        into = std::move(*buf);
        return Ok{};
    };
    for (Status s : {make(d.raw, M * B * 8), make(d.upd, M * B * 8), make(d.finite, S * B * 8),
                     make(d.zeros, S * B * 4), make(d.commit, B * 4), make(d.residualBits, B * 8),
                     make(d.vanished, B * 4)})
        if (!s)
            return s.error();
    if (residual)
        for (Status s : {make(d.edgeResidual, g.numEdges() * B * 8), make(d.threshold, B * 8)})
            if (!s)
                return s.error();
    auto ev = cuda::uploadArray(dev, evidence);
    auto msg = cuda::uploadArray(dev, start);
    auto active = cuda::uploadArray(dev, std::vector<uint32_t>(B, 1));
    if (!ev || !msg || !active)
        return (!ev ? ev.error() : !msg ? msg.error() : active.error());
    d.evidence = std::move(*ev);
    d.msg = std::move(*msg);
    d.active = std::move(*active);
    return d;
}

} // namespace

Result<LoopyGpuRun> runLoopyBpGpu(const FactorGraph &g, std::span<const Evidence> cases,
                                  const LoopyOptions &o, std::optional<LoopyGpuDesign> force) {
    auto opened = cuda::openDevice();
    if (!opened)
        return opened.error();
    cuda::Device &dev = **opened;
    const uint32_t B = uint32_t(cases.size());
    LoopyGpuRun run;
    run.device = dev.info().label();
    const LoopyGpuPlan plan = planLoopyGpu(g, B, force ? &*force : nullptr);
    run.design = describeLoopyGpuPlan(plan);
    const SteadyTime compileStart = std::chrono::steady_clock::now();
    auto module = cuda::compileForDevice(dev, cuda::loopyKernelSource(plan), "loopy_bp.cu");
    if (!module)
        return module.error();
    run.compileMs = msSince(compileStart);
    auto fn = [&](const std::string &name) { return module->module.function(name); };
    auto sums = fn("lbp_sums"), finish = fn("lbp_finish"), commit = fn("lbp_commit"),
         commitEdges = fn("lbp_commit_edges");
    if (!sums || !finish || !commit || !commitEdges)
        return (!sums     ? sums.error()
                : !finish ? finish.error()
                : !commit ? commit.error()
                          : commitEdges.error());
    std::vector<cuda::FunctionHandle> groupFns;
    for (size_t i = 0; i < plan.groups.size(); ++i) {
        auto f = fn(cuda::loopyGroupKernel(plan.groups[i], i));
        if (!f)
            return f.error();
        groupFns.push_back(*f);
    }
    auto graph = uploadGraph(dev, g, plan);
    if (!graph)
        return graph.error();
    const bool residualRounds = o.updateOrder == LoopyUpdateOrder::Residual;
    auto batch = allocateBatch(dev, g, cases, o.semiring, residualRounds);
    if (!batch)
        return batch.error();
    DeviceGraph &dg = *graph;
    DeviceBatch &db = *batch;

    DevicePtr pMsg = db.msg.ptr(), pRaw = db.raw.ptr(), pUpd = db.upd.ptr(),
              pFinite = db.finite.ptr(), pZeros = db.zeros.ptr(), pActive = db.active.ptr(),
              pCommit = db.commit.ptr(), pResidual = db.residualBits.ptr(),
              pVanished = db.vanished.ptr(), pEvidence = db.evidence.ptr(),
              pEdgeResidual = db.edgeResidual.ptr(), pThreshold = db.threshold.ptr();
    DevicePtr pLog = dg.logValues.ptr(), pTable = dg.tableOffset.ptr(),
              pFactorEdge = dg.factorEdgeStart.ptr(), pEdgeVar = dg.edgeVar.ptr(),
              pMsgOffset = dg.msgOffset.ptr(), pStateOffset = dg.stateOffset.ptr(),
              pDomains = dg.domains.ptr(), pVarEdgeStart = dg.varEdgeStart.ptr(),
              pVarEdges = dg.varEdges.ptr();
    uint32_t nVars = uint32_t(g.numVariables()), nEdges = uint32_t(g.numEdges());
    uint64_t nEntries = g.messageEntries();
    int maxProduct = o.semiring == LoopySemiring::MaxProduct;
    double damping = o.damping;

    // One sweep's kernels: sums, every group's messages, normalise/residual/damping.
    auto sweep = [&]() -> Status {
        void *sumArgs[] = {&pMsg,         &pMsgOffset, &pVarEdgeStart, &pVarEdges,
                           &pStateOffset, &pDomains,   &pEvidence,     &pActive,
                           &pFinite,      &pZeros,     &nVars,         const_cast<uint32_t *>(&B)};
        if (Status s = dev.launch(*sums, {blocksFor(uint64_t(nVars) * B), kBlock, 0}, sumArgs); !s)
            return s;
        for (size_t i = 0; i < plan.groups.size(); ++i) {
            const LoopyFactorGroup &group = plan.groups[i];
            DevicePtr pGroup = dg.groupFactors[i].ptr();
            uint32_t count = uint32_t(group.factors.size());
            void *args[] = {&pLog,         &pTable,
                            &pGroup,       &pFactorEdge,
                            &pEdgeVar,     &pMsgOffset,
                            &pStateOffset, &pFinite,
                            &pZeros,       &pMsg,
                            &pRaw,         &pActive,
                            &count,        const_cast<uint32_t *>(&B),
                            &maxProduct};
            uint64_t sumD = 0;
            for (uint32_t d : group.domains)
                sumD += d;
            const cuda::LaunchDims dims =
                group.design == LoopyGpuDesign::DataParallel
                    ? cuda::LaunchDims{blocksFor(uint64_t(count) * sumD * B), kBlock, 0}
                    : cuda::LaunchDims{count * B, group.threads, group.sharedBytes};
            if (Status s = dev.launch(groupFns[i], dims, args); !s)
                return s;
        }
        void *finishArgs[] = {
            &pRaw,       &pMsg,      &pUpd,          &pMsgOffset, &pActive,
            &pResidual,  &pVanished, &pEdgeResidual, &nEdges,     const_cast<uint32_t *>(&B),
            &maxProduct, &damping};
        return dev.launch(*finish, {blocksFor(uint64_t(nEdges) * B), kBlock, 0}, finishArgs);
    };

    run.cases.resize(B);
    std::vector<uint32_t> active(B, 1), commitFlags(B);
    std::vector<uint64_t> residualBits(B);
    std::vector<uint32_t> vanished(B);
    std::vector<double> thresholds(B);
    double deviceMs = 0;
    for (uint32_t it = 1; it <= o.maxIterations; ++it) {
        if (std::find(active.begin(), active.end(), 1u) == active.end())
            break;
        auto ms = dev.time(nullptr, [&]() -> Status {
            if (Status s = dev.fill(pResidual, 0, size_t(B) * 8); !s)
                return s;
            if (Status s = dev.fill(pVanished, 0, size_t(B) * 4); !s)
                return s;
            return sweep();
        });
        if (!ms)
            return ms.error();
        deviceMs += *ms;
        run.sweeps = it;
        if (Status s = dev.download(residualBits.data(), pResidual, size_t(B) * 8); !s)
            return s.error();
        if (Status s = dev.download(vanished.data(), pVanished, size_t(B) * 4); !s)
            return s.error();
        for (uint32_t b = 0; b < B; ++b) {
            commitFlags[b] = 0;
            if (!active[b])
                continue;
            LoopyCase &c = run.cases[b];
            double residual;
            std::memcpy(&residual, &residualBits[b], 8);
            c.iterations = it;
            c.maxResidual = residual;
            c.vanished = vanished[b] != 0;
            c.converged = !c.vanished && residual < o.tolerance;
            commitFlags[b] = !c.vanished && !c.converged;
            active[b] = commitFlags[b];
            thresholds[b] = std::max(residual * kResidualRoundShare, o.tolerance);
        }
        if (Status s = dev.upload(pCommit, commitFlags.data(), size_t(B) * 4); !s)
            return s.error();
        if (residualRounds) { // the messages at or above their instance's threshold
            if (Status s = dev.upload(pThreshold, thresholds.data(), size_t(B) * 8); !s)
                return s.error();
            void *args[] = {&pUpd,       &pMsg,    &pMsgOffset, &pEdgeResidual,
                            &pThreshold, &pCommit, &nEdges,     const_cast<uint32_t *>(&B)};
            if (Status s =
                    dev.launch(*commitEdges, {blocksFor(uint64_t(nEdges) * B), kBlock, 0}, args);
                !s)
                return s.error();
        } else {
            void *args[] = {&pUpd, &pMsg, &pCommit, &nEntries, const_cast<uint32_t *>(&B)};
            if (Status s = dev.launch(*commit, {blocksFor(nEntries * B), kBlock, 0}, args); !s)
                return s.error();
        }
        if (Status s = dev.upload(pActive, active.data(), size_t(B) * 4); !s)
            return s.error();
    }
    run.sweepMs = run.sweeps ? deviceMs / run.sweeps : 0;
    std::vector<double> messages(nEntries * B);
    if (Status s = dev.download(messages.data(), pMsg, messages.size() * 8); !s)
        return s.error();
    const unsigned threads = threadsOrCores(0);
    onThreads(std::min<size_t>(threads, std::max<size_t>(B, 1)), [&](size_t t) {
        for (size_t b = t; b < B; b += std::min<size_t>(threads, B)) {
            LoopyCase &c = run.cases[b];
            c.messages.resize(nEntries);
            for (uint64_t j = 0; j < nEntries; ++j)
                c.messages[j] = messages[j * B + b];
            const bool converged = c.converged;
            finishLoopyCase(g, cases[b], o.semiring, c);
            c.converged = converged && !c.vanished;
        }
    });
    return run;
}

} // namespace zbddc
