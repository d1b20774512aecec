#include "compiler/loopy/loopy_design.h"

#include <algorithm>
#include <map>

namespace zbddc {

namespace {

// Shared memory of a cooperative block: the incoming messages and one partial set of outgoing
// messages per warp (Σ scope domains doubles each).
uint64_t cooperativeShared(uint32_t threads, uint64_t partialEntries) {
    return (threads / 32 + 1) * partialEntries * 8;
}

// Threads per cooperative block: the largest power of two up to 1024 and up to the factor's
// entries whose shared memory fits the limit.
uint32_t cooperativeThreads(uint64_t entries, uint64_t partialEntries) {
    uint32_t t = 1024;
    while (t > 32 && (t > entries || cooperativeShared(t, partialEntries) > kLoopySharedBytes))
        t /= 2;
    return t;
}

} // namespace

LoopyGpuPlan planLoopyGpu(const FactorGraph &g, uint32_t batch, const LoopyGpuDesign *force) {
    LoopyGpuPlan plan;
    plan.batch = batch;
    std::map<std::vector<uint32_t>, size_t> byShape;
    for (uint32_t f = 0; f < g.factors.size(); ++f) {
        std::vector<uint32_t> shape;
        for (uint32_t v : g.factors[f].scope)
            shape.push_back(g.domainSizes[v]);
        if (shape.empty())
            continue; // a constant factor sends no message
        auto [it, fresh] = byShape.emplace(shape, plan.groups.size());
        if (fresh)
            plan.groups.push_back({shape, {}, g.factors[f].logValues.size()});
        plan.groups[it->second].factors.push_back(f);
    }
    for (LoopyFactorGroup &group : plan.groups) {
        uint64_t partial = 0;
        for (uint32_t d : group.domains)
            partial += d;
        const bool fits = cooperativeShared(32, partial) <= kLoopySharedBytes;
        const bool cooperative = force ? *force == LoopyGpuDesign::Cooperative && fits
                                       : fits && batch < kLoopyCrossoverBatch &&
                                             group.entries >= kLoopyCooperativeMinEntries;
        group.design = cooperative ? LoopyGpuDesign::Cooperative : LoopyGpuDesign::DataParallel;
        group.threads = cooperative ? cooperativeThreads(group.entries, partial) : 256;
        group.sharedBytes = cooperative ? uint32_t(cooperativeShared(group.threads, partial)) : 0;
    }
    return plan;
}

std::string describeLoopyGpuPlan(const LoopyGpuPlan &plan) {
    size_t dp = 0, co = 0;
    uint32_t minT = UINT32_MAX, maxT = 0;
    for (const LoopyFactorGroup &g : plan.groups) {
        if (g.design == LoopyGpuDesign::DataParallel) {
            ++dp;
            continue;
        }
        ++co;
        minT = std::min(minT, g.threads);
        maxT = std::max(maxT, g.threads);
    }
    std::string out = std::to_string(dp) +
                      " factor group(s) data-parallel (a thread per message "
                      "entry x instance), " +
                      std::to_string(co) + " thread-cooperative (a block per factor x instance";
    if (co)
        out += ", " + std::to_string(minT) + (minT == maxT ? "" : "-" + std::to_string(maxT)) +
               " threads";
    return out + ")";
}

} // namespace zbddc
