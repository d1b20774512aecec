// solveDpop over MPI: rank 0 computes the agents' order and broadcasts it, every rank builds the
// same pseudo-tree and runs its block of agents (dpop_rank.h), and rank 0 gathers every rank's
// report (its agents' values, the optimum where it holds the root, its counts) in one gather with
// a deadline, so a rank that died or hangs ends the run with an error instead of a hang. MPI
// itself is the module of mpi_module.h, loaded here.
#include "runtime/dpop/dpop_plan.h"
#include "runtime/dpop/idle_wait.h"
#include "runtime/dpop/mpi_module.h"
#include "support/resident_code.h"
#include "support/timer.h"

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

DpopRankOptions rankOptions(const DpopOptions &options, const MpiFunctions &mpi) {
    // CPU threads stay at the executor's default (every hardware thread): DPOP's ranks mostly
    // take turns, the large UTIL tables near the root computed one after another.
    DpopRankOptions r{options.executor, options.execution, options.timeoutS};
    if (options.executor != "cpu" && options.executor != "reference")
        if (auto gpus = resolveGpuRequest("all"); gpus && !gpus->empty())
            r.execution.gpu = (*gpus)[mpi.localRank() % gpus->size()];
    r.ownCores = ranksHaveOwnCores(mpi.ranksOnHost());
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

std::vector<std::byte> packReport(const DpopRankReport &r, const DpopTransport &t) {
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
                             const MpiFunctions &mpi) {
    const int rank = mpi.rank(), size = mpi.ranks();
    // While mpirun starts the other ranks: each agent's first UTIL would otherwise fault in the
    // code it runs, a page at a time (support/resident_code.h).
    mapCodeResident();
    // Timed from when every rank is up: mpirun starts them over tens of milliseconds.
    if (Status s = mpi.barrier(options.timeoutS, "the start"); !s)
        return error("rank " + std::to_string(rank) + ": " + s.error().message);
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<uint32_t> agentOf = agentMapOf(network, options);
    const uint32_t agents = agentCount(agentOf);
    std::vector<uint32_t> order(agents);
    if (rank == 0)
        order = agentOrderOf(network, agentOf, options);
    mpi.broadcast(order);
    auto tree = buildPseudoTree(network, agentOf, order);
    if (!tree)
        return tree.error();
    const std::vector<int> rankOf = placeAgents(*tree, size);
    const DpopRankOptions ro = rankOptions(options, mpi);
    DpopRun run;
    run.stats.setupMs = msSince(t0);

    if (options.testExitRank == rank)
        _exit(1);
    if (options.testSilentRank == rank) {
        std::this_thread::sleep_for(std::chrono::duration<double>(2 * options.timeoutS));
        return error("rank " + std::to_string(rank) + ": silent, as its failure drill asks");
    }
    const auto t1 = std::chrono::steady_clock::now();
    const std::unique_ptr<DpopTransport> transport = mpi.transport();
    auto report = runDpopRank(network, *tree, rankOf, transport.get(), ro);
    if (!report)
        return report.error();
    // One gather ends the run (a rank that died or hangs fails it within the deadline) and brings
    // rank 0 every rank's report.
    const std::vector<std::byte> mine = packReport(*report, *transport);
    std::vector<std::byte> all(rank == 0 ? mine.size() * size : 0);
    if (Status s = mpi.gather(mine, all, options.timeoutS, "the end of the VALUE phase"); !s)
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
    auto mpi = mpiFunctions();
    if (!mpi)
        return mpi.error();
    if (Status s = (*mpi)->start(); !s)
        return s.error();
    auto run = solveOnRanks(network, options, **mpi);
    if (!run)
        return run.error(); // MPI stays up: the caller ends every rank (abortDistributedRun)
    (*mpi)->finish();
    return run;
}

void abortDistributedRun(int exitCode) {
    if (const MpiFunctions *mpi = mpiFunctionsIfLoaded())
        mpi->abort(exitCode);
}

} // namespace zbddc
