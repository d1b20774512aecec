// solveDpop over MPI: rank 0 computes the agents' order and broadcasts it, every rank builds the
// same pseudo-tree and runs its block of agents (dpop_rank.h), and rank 0 gathers every rank's
// report (its agents' values, the optimum where it holds the root, its counts) in one gather with
// a deadline, so a rank that died or hangs ends the run with an error instead of a hang.
#include "runtime/dpop/dpop_plan.h"
#include "runtime/dpop/mpi_transport.h"
#include "support/timer.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <span>
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

// What a rank sends rank 0 at the end: its report and its transport's counts, as bytes of the
// same length on every rank (the fixed part, then the agents' times, then the assignment).
struct RankRecord {
    DpopRankReport report;
    uint64_t mpiMessages = 0, mpiBytes = 0;
};
struct RecordHead {
    Cost optimum;
    uint64_t holdsRoot, mpiMessages, mpiBytes;
    DpopCounts counts;
};

std::vector<std::byte> packReport(const DpopRankReport &r, const MpiTransport &t) {
    const RecordHead h{r.optimum, r.holdsRoot, t.messagesSent, t.bytesSent, r};
    const size_t times = r.agentComputeMs.size() * sizeof(double);
    std::vector<std::byte> out(sizeof h + times + r.assignment.size() * sizeof(uint32_t));
    std::memcpy(out.data(), &h, sizeof h);
    std::memcpy(out.data() + sizeof h, r.agentComputeMs.data(), times);
    std::memcpy(out.data() + sizeof h + times, r.assignment.data(),
                r.assignment.size() * sizeof(uint32_t));
    return out;
}

RankRecord unpackReport(std::span<const std::byte> in, size_t variables, size_t agents) {
    RecordHead h;
    std::memcpy(&h, in.data(), sizeof h);
    RankRecord got;
    DpopRankReport &r = got.report;
    static_cast<DpopCounts &>(r) = h.counts;
    r.optimum = h.optimum;
    r.holdsRoot = h.holdsRoot != 0;
    got.mpiMessages = h.mpiMessages;
    got.mpiBytes = h.mpiBytes;
    r.agentComputeMs.resize(agents);
    r.assignment.resize(variables);
    std::memcpy(r.agentComputeMs.data(), in.data() + sizeof h, agents * sizeof(double));
    std::memcpy(r.assignment.data(), in.data() + sizeof h + agents * sizeof(double),
                variables * sizeof(uint32_t));
    return got;
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
    // One gather ends the run (a rank that died or hangs fails it within the deadline) and brings
    // rank 0 every rank's report.
    const std::vector<std::byte> mine = packReport(*report, transport);
    std::vector<std::byte> all(rank == 0 ? mine.size() * size : 0);
    MPI_Request gather;
    MPI_Igather(mine.data(), static_cast<int>(mine.size()), MPI_BYTE, all.data(),
                static_cast<int>(mine.size()), MPI_BYTE, 0, comm, &gather);
    if (Status s = waitWithin(gather, options.timeoutS, "the end of the VALUE phase"); !s)
        return error("rank " + std::to_string(rank) + ": " + s.error().message);
    run.stats.protocolMs = msSince(t1);
    run.reporter = rank == 0;
    if (!run.reporter)
        return run;

    DpopStats &st = run.stats;
    Cost optimum = 0;
    std::vector<uint32_t> assignment(network.numVariables(), 0);
    for (int r = 0; r < size; ++r) {
        const RankRecord got = unpackReport(std::span(all).subspan(r * mine.size(), mine.size()),
                                            network.numVariables(), agents);
        addRankReport(st, got.report);
        st.mpiMessages += got.mpiMessages;
        st.mpiBytes += got.mpiBytes;
        if (got.report.holdsRoot)
            optimum = got.report.optimum;
        for (size_t v = 0; v < assignment.size(); ++v)
            assignment[v] += got.report.assignment[v]; // each rank sets its own variables only
    }
    st.ranks = size;
    st.agents = agents;
    st.treeDepth = tree->depth();
    st.pseudoTree = options.order.empty() ? "min-fill" : "given";
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
