// solveDpop over MPI: rank 0 computes the agents' order and broadcasts it, every rank builds the
// same pseudo-tree and runs its block of agents (dpop_rank.h), the root's rank announces the
// optimum, and rank 0 gathers the assignment and the counts. Every collective after the protocol
// is preceded by a barrier with a deadline, so a rank that died or hangs ends the run with an
// error instead of a hang.
#include "runtime/dpop/dpop_plan.h"
#include "runtime/dpop/mpi_transport.h"
#include "support/timer.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <unistd.h>

namespace zbddc {

namespace {

bool launchedByMpirun() {
    for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"})
        if (std::getenv(name))
            return true;
    return false;
}

bool mpiRunning() {
    int initialised = 0, finalised = 0;
    MPI_Initialized(&initialised);
    MPI_Finalized(&finalised);
    return initialised && !finalised;
}

// This rank's place among the ranks on its host: which of the host's GPUs it takes.
int localRankOf(MPI_Comm comm) {
    MPI_Comm local;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
    int rank = 0;
    MPI_Comm_rank(local, &rank);
    MPI_Comm_free(&local);
    return rank;
}

DpopRankOptions rankOptions(const DpopOptions &options, MPI_Comm comm) {
    // CPU threads stay at the executor's default (every hardware thread): DPOP's ranks mostly
    // take turns, the large UTIL tables near the root computed one after another.
    DpopRankOptions r{options.executor, options.execution, options.timeoutS};
    if (options.executor != "cpu" && options.executor != "reference")
        if (auto gpus = resolveGpuRequest("all"); gpus && !gpus->empty())
            r.execution.gpu = (*gpus)[localRankOf(comm) % gpus->size()];
    return r;
}

Result<DpopRun> solveOnRanks(const CostNetwork &network, const DpopOptions &options,
                             MPI_Comm comm) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    // Timed from when every rank is up: mpirun starts them over tens of milliseconds.
    if (Status s = barrierWithin(comm, options.timeoutS, "the start"); !s)
        return error("rank " + std::to_string(rank) + ": " + s.error().message);
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<uint32_t> agentOf = agentMapOf(network, options);
    const uint32_t agents = agentCount(agentOf);
    std::vector<uint32_t> order(agents);
    if (rank == 0)
        order = agentOrderOf(network, agentOf, options);
    MPI_Bcast(order.data(), static_cast<int>(agents), MPI_UINT32_T, 0, comm);
    auto tree = buildPseudoTree(network, agentOf, order);
    if (!tree)
        return tree.error();
    const std::vector<int> rankOf = placeAgents(*tree, size);
    const DpopRankOptions ro = rankOptions(options, comm);
    DpopRun run;
    run.stats.setupMs = msSince(t0);

    if (options.testExitRank == rank)
        _exit(1);
    if (options.testSilentRank == rank) {
        std::this_thread::sleep_for(std::chrono::duration<double>(2 * options.timeoutS));
        return error("rank " + std::to_string(rank) + ": silent, as its failure drill asks");
    }
    const auto t1 = std::chrono::steady_clock::now();
    MpiTransport transport(comm);
    auto report = runDpopRank(network, *tree, rankOf, &transport, ro);
    if (!report)
        return report.error();
    if (Status s = barrierWithin(comm, options.timeoutS, "the end of the VALUE phase"); !s)
        return error("rank " + std::to_string(rank) + ": " + s.error().message);
    run.stats.protocolMs = msSince(t1);

    // The root's rank announces the optimum (its bits: int64 costs travel as they are).
    Cost optimum = report->optimum;
    MPI_Bcast(&optimum, sizeof optimum, MPI_BYTE, rankOf[tree->root()], comm);
    std::vector<uint32_t> assignment(network.numVariables(), 0);
    MPI_Reduce(report->assignment.data(), assignment.data(), static_cast<int>(assignment.size()),
               MPI_UINT32_T, MPI_SUM, 0, comm);
    uint64_t counts[5] = {report->utilMessages, report->valueMessages, report->messageBytes,
                          transport.messagesSent, transport.bytesSent};
    uint64_t totals[5] = {};
    MPI_Reduce(counts, totals, 5, MPI_UINT64_T, MPI_SUM, 0, comm);
    double peaks[3] = {report->largestUtilEntries, report->simulatedMs, report->largestUtilWork};
    double maxima[3] = {};
    MPI_Reduce(peaks, maxima, 3, MPI_DOUBLE, MPI_MAX, 0, comm);
    std::vector<double> computeMs(agents, 0.0);
    MPI_Reduce(report->agentComputeMs.data(), computeMs.data(), static_cast<int>(agents),
               MPI_DOUBLE, MPI_SUM, 0, comm);
    run.reporter = rank == 0;
    if (!run.reporter)
        return run;

    DpopStats &st = run.stats;
    st.ranks = size;
    st.agents = agents;
    st.treeDepth = tree->depth();
    st.pseudoTree = options.order.empty() ? "min-fill" : "given";
    st.utilMessages = totals[0];
    st.valueMessages = totals[1];
    st.messageBytes = totals[2];
    st.mpiMessages = totals[3];
    st.mpiBytes = totals[4];
    st.largestUtilEntries = maxima[0];
    st.simulatedMs = maxima[1];
    st.largestUtilWork = maxima[2];
    st.agentComputeMs = std::move(computeMs);
    auto sol = dpopSolution(network, *tree, optimum, std::move(assignment));
    if (!sol)
        return sol.error();
    run.solution = std::move(*sol);
    run.solution.device = report->device;
    run.solution.stats.largestTableEntries = st.largestUtilEntries;
    run.solution.stats.totalMs = msSince(t0);
    return run;
}

} // namespace

Status distributedRunAvailable() {
    if (!launchedByMpirun())
        return error("--distributed runs under mpirun (mpirun -np N zbddc run FILE --distributed); "
                     "this process was not started by mpirun");
    return Ok{};
}

Result<DpopRun> solveDpop(const CostNetwork &network, const DpopOptions &options) {
    if (Status s = distributedRunAvailable(); !s)
        return s.error();
    int provided = 0;
    if (!mpiRunning() &&
        MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return error("MPI_Init failed");
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    auto run = solveOnRanks(network, options, comm);
    if (!run)
        return run.error(); // MPI stays up: the caller ends every rank (abortDistributedRun)
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return run;
}

void abortDistributedRun(int exitCode) {
    if (mpiRunning())
        MPI_Abort(MPI_COMM_WORLD, exitCode);
}

} // namespace zbddc
