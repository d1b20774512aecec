#include "runtime/junction_tree/junction_tree_library.h"

#include "backends/tensor/so/network_so.h"
#include "compiler/junction_tree/junction_tree_stats.h"
#include "compiler/junction_tree/program_entries.h"
#include "ir/number_text.h"
#include "runtime/shared_objects/network_metadata.h"

#include <algorithm>

namespace zbddc {

namespace {

JunctionTreeLowering lowering(const BayesNet &net, bool maxProduct, uint32_t batch,
                              JunctionTreeLowering::Belief belief) {
    JunctionTreeLowering l;
    l.maxProduct = maxProduct;
    l.marginals = !maxProduct;
    l.batch = batch;
    // One program for every evidence: every variable has its indicator table (1s where a case
    // leaves it unobserved); case slowest, so one case's rows are contiguous on the CPU.
    for (uint32_t v = 0; v < net.variables.size(); ++v)
        l.observed.push_back(v);
    l.batchFastest = false;
    l.belief = belief;
    return l;
}

NetworkProgram networkProgram(JunctionTreeProgram &&jt) {
    NetworkProgram n;
    n.program = std::move(jt.program);
    n.evidenceTable = std::move(jt.evidenceTable);
    n.normaliser = jt.normaliser;
    n.scales = std::move(jt.collectScales);
    n.marginalTable = std::move(jt.marginalTable);
    return n;
}

} // namespace

Result<JunctionTreeLibraryStats>
writeJunctionTreeLibrary(const BayesNet &net, const JunctionTree &tree, const std::string &path,
                         const JunctionTreeLibraryOptions &options) {
    if (net.variables.empty())
        return error("a network without variables has no junction tree to compile");
    uint32_t batch = options.batch;
    if (batch == 0) {
        auto probe = lowerJunctionTree(net, tree, lowering(net, false, 1, options.belief));
        if (!probe)
            return probe.error();
        const ProgramEntries e = programEntries(*probe);
        const uint64_t budget = kNetworkBatchBytes / sizeof(double);
        const uint64_t room = budget > e.fixed ? budget - e.fixed : 0;
        batch = static_cast<uint32_t>(
            std::clamp<uint64_t>(room / std::max<uint64_t>(e.perCase, 1), 1, 64));
    }
    auto sum = lowerJunctionTree(net, tree, lowering(net, false, batch, options.belief));
    if (!sum)
        return sum.error();
    auto max = lowerJunctionTree(net, tree, lowering(net, true, batch, options.belief));
    if (!max)
        return max.error();
    JunctionTreeLibraryStats stats;
    stats.batch = batch;
    stats.bytesPerRun = programEntries(*sum).atBatch(batch) * sizeof(double);

    const JunctionTreeStats shape = junctionTreeStats(tree);
    NetworkMetadata m;
    m.route = "jt";
    m.facts = {{"tasks", "pr,mar,mpe"},
               {"batch", std::to_string(batch)},
               {"cliques", std::to_string(shape.cliques)},
               {"induced_width", std::to_string(shape.inducedWidth)},
               {"total_clique_entries", exactText(shape.totalCliqueEntries)}};
    for (const BnVariable &v : net.variables)
        m.variables.push_back({v.name, v.states});
    NetworkSoOptions so;
    so.specialiseWork = options.specialiseWork;
    so.flags.insert(so.flags.end(), options.extraCompilerFlags.begin(),
                    options.extraCompilerFlags.end());
    auto seconds =
        writeNetworkSharedObject(networkProgram(std::move(*sum)), networkProgram(std::move(*max)),
                                 batch, writeNetworkMetadata(m), path, so);
    if (!seconds)
        return seconds.error();
    stats.compileSeconds = *seconds;
    return stats;
}

} // namespace zbddc
