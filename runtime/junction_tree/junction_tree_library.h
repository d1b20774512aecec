// `zbddc NET -o net.so` on the junction-tree route: the network's junction tree lowered with a
// fixed batch of cases — once in sum-product with every marginal (PR, MAR), once in max-product
// (MPE) — and compiled into a network.so (backends/tensor/so/network_so.h) that answers batches
// of evidence through the C ABI of zbdd_network.h. runtime/shared_objects/network_library.h loads it.
#pragma once

#include "backends/tensor/so/emit_network_c.h"
#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/junction_tree/junction_tree.h"
#include "compiler/junction_tree/lower_junction_tree.h"
#include "ir/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace zbddc {

struct JunctionTreeLibraryOptions {
    uint32_t batch = 0; // cases per run; 0: as many as fit kBatchBytes of tables, at most 64
    JunctionTreeLowering::Belief belief = JunctionTreeLowering::Belief::ByCost;
    // Ops from this much work get specialised C, the rest a generic loop (emit_network_c.h).
    uint64_t specialiseWork = kSpecialiseWork;
    std::vector<std::string> extraCompilerFlags; // appended to the C compiler's (tests: UBSan)
};

// Message tables of one run (one thread) stay near this size when the batch is chosen.
inline constexpr uint64_t kNetworkBatchBytes = uint64_t{64} << 20;

struct JunctionTreeLibraryStats {
    uint32_t batch = 0;
    uint64_t bytesPerRun = 0; // the sum-product program's tables at that batch
    double compileSeconds = 0;
};

// The tree must have been built from `net` (buildJunctionTree).
Result<JunctionTreeLibraryStats>
writeJunctionTreeLibrary(const BayesNet &net, const JunctionTree &tree, const std::string &path,
                         const JunctionTreeLibraryOptions &options = {});

} // namespace zbddc
