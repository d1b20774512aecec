// libzbddc_mpi.so's side of mpi_module.h: MPI itself, on one communicator per run.
#include "runtime/dpop/idle_wait.h"
#include "runtime/dpop/mpi_module.h"
#include "runtime/dpop/mpi_transport.h"

#include <mpi.h>

namespace zbddc {

namespace {

MPI_Comm runComm = MPI_COMM_NULL; // between start and finish
// This rank's place among the ranks on its host, and how many they are: found once, at start.
int hostRank = 0, hostRanks = 1;
// Every rank of the host has a core to itself: idle waits may spin (idle_wait.h).
bool ownCores = false;

bool running() {
    int initialised = 0, finalised = 0;
    MPI_Initialized(&initialised);
    MPI_Finalized(&finalised);
    return initialised && !finalised;
}

Status start() {
    int provided = 0;
    if (!running() &&
        MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return error("MPI_Init failed");
    MPI_Comm_dup(MPI_COMM_WORLD, &runComm);
    MPI_Comm host;
    MPI_Comm_split_type(runComm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    MPI_Comm_rank(host, &hostRank);
    MPI_Comm_size(host, &hostRanks);
    MPI_Comm_free(&host);
    ownCores = ranksHaveOwnCores(hostRanks);
    return Ok{};
}

void finish() {
    MPI_Comm_free(&runComm);
    MPI_Finalize();
}

void abortWorld(int exitCode) {
    if (running())
        MPI_Abort(MPI_COMM_WORLD, exitCode);
}

int rank() {
    int r = 0;
    MPI_Comm_rank(runComm, &r);
    return r;
}

int ranks() {
    int n = 1;
    MPI_Comm_size(runComm, &n);
    return n;
}

int localRank() {
    return hostRank;
}

int ranksOnHost() {
    return hostRanks;
}

Status barrier(double timeoutS, const char *what) {
    return barrierWithin(runComm, timeoutS, what, ownCores);
}

void broadcast(std::span<uint32_t> values) {
    MPI_Bcast(values.data(), static_cast<int>(values.size()), MPI_UINT32_T, 0, runComm);
}

Status gather(std::span<const std::byte> mine, std::span<std::byte> all, double timeoutS,
              const char *what) {
    MPI_Request request;
    MPI_Igather(mine.data(), static_cast<int>(mine.size()), MPI_BYTE, all.data(),
                static_cast<int>(mine.size()), MPI_BYTE, 0, runComm, &request);
    return waitWithin(request, timeoutS, what, ownCores);
}

std::unique_ptr<DpopTransport> transport() {
    return std::make_unique<MpiTransport>(runComm, ownCores);
}

} // namespace

} // namespace zbddc

extern "C" __attribute__((visibility("default"))) const zbddc::MpiFunctions *zbddc_mpi_module_v1() {
    using namespace zbddc;
    static const MpiFunctions table{.running = running,
                                    .start = start,
                                    .finish = finish,
                                    .abort = abortWorld,
                                    .rank = rank,
                                    .ranks = ranks,
                                    .localRank = localRank,
                                    .barrier = barrier,
                                    .broadcast = broadcast,
                                    .gather = gather,
                                    .transport = transport,
                                    .ranksOnHost = ranksOnHost};
    return &table;
}
