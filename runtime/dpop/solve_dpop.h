// DPOP (Petcu and Faltings 2005) on a cost network whose variables are owned by agents, the agents
// spread over MPI ranks (one per GPU on a host with several): a pseudo-tree from an elimination
// order of the agents (min-fill on rank 0, broadcast; or the given variable order), UTIL tables up
// the tree, each computed by a tensor executor, VALUE messages down, the optimum announced by the
// root's rank. docs/distributed.md tells how to run it.
#pragma once

#include "runtime/bucket_elimination/solve_be.h"

#include <string>
#include <vector>

namespace zbddc {

struct DpopOptions {
    std::vector<uint32_t> agentOf; // by variable; empty: one agent per variable
    std::vector<uint32_t> order;   // a variable order (--order); empty: min-fill on the agents
    // A name of tensorExecutors(); "auto": each rank's own GPU where it has one (local rank modulo
    // the GPUs), else its CPU.
    std::string executor = "cpu";
    TensorExecutorOptions execution; // threads 0: every hardware thread, on each rank
    double timeoutS = 60; // the longest a rank waits without any message before giving up
    // Failure drills (tests/runtime/dpop): the rank that dies at once, the one that sends nothing
    // as if its messages were lost; -1: none. The command line reads them from ZBDDC_DPOP_TEST_*.
    int testExitRank = -1, testSilentRank = -1;
};

// What each rank counts; the run's are the sums (messages) and maxima (the rest) over its ranks.
struct DpopCounts {
    uint64_t utilMessages = 0, valueMessages = 0;
    uint64_t messageBytes = 0; // every agent-to-agent message, on a rank or across
    double largestUtilEntries = 0;
    double largestUtilWork = 0; // join entries of the largest UTIL computation
    // Sultanik et al. 2007's simulated time: the longest chain of computations along the messages,
    // as if every agent had its own processor and messages took no time.
    double simulatedMs = 0;
    void add(const DpopCounts &rank);
};

struct DpopStats : DpopCounts {
    int ranks = 1;
    uint32_t agents = 0, treeDepth = 0;
    std::string pseudoTree;                 // "min-fill" or "given"
    uint64_t mpiMessages = 0, mpiBytes = 0; // the messages that crossed between ranks
    std::vector<double> agentComputeMs;     // by agent: its UTIL and VALUE computations
    double setupMs = 0, protocolMs = 0;     // the tree (on every rank), the UTIL and VALUE phases
};

struct DpopRun {
    bool reporter = false; // this rank prints (rank 0)
    Solution solution;     // on the reporter; the assignment checked against the original tables
    DpopStats stats;
};

// Ok where --distributed can run here: an MPI build started by mpirun; else one line saying why.
Status distributedRunAvailable();

// Every rank calls it with the same network and options (MPI_Init and MPI_Finalize inside).
Result<DpopRun> solveDpop(const CostNetwork &network, const DpopOptions &options);

// The same protocol on one process, every message delivered in place (no MPI needed).
Result<DpopRun> solveDpopInProcess(const CostNetwork &network, const DpopOptions &options);

// After an error on one rank: ends every rank of the run (MPI_Abort) with `exitCode`. Returns
// where no distributed run is under way.
void abortDistributedRun(int exitCode);

} // namespace zbddc
