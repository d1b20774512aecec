// One rank's part of DPOP (Petcu and Faltings 2005): the agents placed on this rank compute their
// UTIL tables once all their children's have arrived (each a one-op TensorProgram, util_program.h,
// run by a tensor executor), send them up, then pick their variables' values once their parent's
// VALUE message arrives and send VALUE messages down. Messages between agents of one rank are
// delivered in place; the others go through the transport. Every wait has a deadline: no message
// for `timeoutS` seconds while an agent still waits ends the rank's part with an error that names
// what it waited for.
#pragma once

#include "compiler/elimination/pseudo_tree.h"
#include "runtime/dpop/dpop_transport.h"
#include "runtime/dpop/solve_dpop.h"
#include "runtime/tensor/tensor_executor.h"

#include <string>
#include <vector>

namespace zbddc {

// On a rank whose executor is a GPU's, UTILs of less work (join entries) run on its CPU, and a
// rank that has none larger never starts its GPU: a rank's first GPU work costs 0.3-1 s (its
// context and kernels; H100 host, 16 ranks on one GPU, 2026-12-06), about what a CPU rank takes
// for 2^27 entries (SPOT5 404's largest UTIL, 2^25 entries of work: 78 ms on a CPU rank, 299 ms
// as a GPU rank's first work).
inline constexpr double kSmallUtilWork = double(uint64_t{1} << 27);

struct DpopRankOptions {
    std::string executor = "cpu"; // a name of tensorExecutors()
    TensorExecutorOptions execution;
    double timeoutS = 60;
    // Every rank on the host has a core to itself: an idle rank yields between its polls before
    // it sleeps (idle_wait.h).
    bool ownCores = false;
};

// What one rank saw: its counts (simulatedMs: the latest clock of its agents), and its part of
// the assignment and of the agents' times.
struct DpopRankReport : DpopCounts {
    std::vector<uint32_t> assignment; // by variable: this rank's agents' variables set, others 0
    bool holdsRoot = false;
    Cost optimum = 0;                   // where holdsRoot: the root's UTIL, the optimum
    std::vector<double> agentComputeMs; // by agent (UTIL + VALUE); 0 for other ranks' agents
    DeviceReport device;
};

// `rankOf`: by agent, the rank that runs it.
Result<DpopRankReport> runDpopRank(const CostNetwork &network, const PseudoTree &tree,
                                   const std::vector<int> &rankOf, DpopTransport *transport,
                                   const DpopRankOptions &options);

// Agents cut into `ranks` blocks of consecutive agents in depth-first order from the root, so
// that a subtree stays on few ranks.
std::vector<int> placeAgents(const PseudoTree &tree, int ranks);

} // namespace zbddc
