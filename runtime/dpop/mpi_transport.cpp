#include "runtime/dpop/mpi_transport.h"

#include "runtime/dpop/idle_wait.h"
#include "support/timer.h"

#include <chrono>
#include <climits>
#include <cstring>

namespace zbddc {

namespace {
// DPOP's messages; the run's own communicator carries nothing else. A head and its table go to one
// rank in the order sent, so the next table from a rank is the one its last head announced.
constexpr int kHeadTag = 71, kTableTag = 72;
} // namespace

MpiTransport::MpiTransport(MPI_Comm comm, bool ownCores) : comm_(comm), ownCores_(ownCores) {
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &size_);
}

Status MpiTransport::send(int rank, DpopWire wire) {
    const uint64_t entries = wire.table.size();
    if (wire.head.size() + sizeof entries > static_cast<size_t>(INT_MAX) ||
        entries > static_cast<uint64_t>(INT_MAX))
        return error("a message of " + std::to_string(entries) +
                     " table entries, beyond what one MPI send carries");
    ++messagesSent;
    bytesSent += wire.head.size() + entries * sizeof(double);
    Pending &p = pending_.emplace_back();
    p.wire = std::move(wire);
    const auto *count = reinterpret_cast<const std::byte *>(&entries);
    p.wire.head.insert(p.wire.head.end(), count, count + sizeof entries);
    p.requests[1] = MPI_REQUEST_NULL;
    if (MPI_Isend(p.wire.head.data(), static_cast<int>(p.wire.head.size()), MPI_BYTE, rank,
                  kHeadTag, comm_, &p.requests[0]) != MPI_SUCCESS ||
        (entries > 0 && MPI_Isend(p.wire.table.data(), static_cast<int>(entries), MPI_DOUBLE, rank,
                                  kTableTag, comm_, &p.requests[1]) != MPI_SUCCESS))
        return error("MPI_Isend to rank " + std::to_string(rank) + " failed");
    reapSends();
    return Ok{};
}

void MpiTransport::reapSends() {
    for (auto it = pending_.begin(); it != pending_.end();) {
        int done = 0;
        MPI_Testall(2, it->requests, &done, MPI_STATUSES_IGNORE);
        it = done ? pending_.erase(it) : std::next(it);
    }
}

Result<std::optional<DpopWire>> MpiTransport::poll() {
    reapSends();
    int flag = 0;
    MPI_Status status;
    if (MPI_Iprobe(MPI_ANY_SOURCE, kHeadTag, comm_, &flag, &status) != MPI_SUCCESS)
        return error("MPI_Iprobe failed");
    if (!flag)
        return std::optional<DpopWire>();
    const int from = status.MPI_SOURCE;
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    DpopWire wire;
    uint64_t entries = 0;
    wire.head.resize(static_cast<size_t>(count));
    if (MPI_Recv(wire.head.data(), count, MPI_BYTE, from, kHeadTag, comm_, MPI_STATUS_IGNORE) !=
        MPI_SUCCESS)
        return error("MPI_Recv from rank " + std::to_string(from) + " failed");
    if (wire.head.size() < sizeof entries)
        return error("a message from rank " + std::to_string(from) + " shorter than its frame");
    std::memcpy(&entries, wire.head.data() + wire.head.size() - sizeof entries, sizeof entries);
    wire.head.resize(wire.head.size() - sizeof entries);
    if (entries > static_cast<uint64_t>(INT_MAX))
        return error("a message from rank " + std::to_string(from) + " announces " +
                     std::to_string(entries) + " table entries");
    wire.table.resize(entries);
    if (entries > 0 && MPI_Recv(wire.table.data(), static_cast<int>(entries), MPI_DOUBLE, from,
                                kTableTag, comm_, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return error("MPI_Recv from rank " + std::to_string(from) + " failed");
    return std::optional<DpopWire>(std::move(wire));
}

Status MpiTransport::flush(double timeoutS) {
    const auto t0 = std::chrono::steady_clock::now();
    IdleWait idle(ownCores_);
    while (true) {
        reapSends();
        if (pending_.empty())
            return Ok{};
        if (msSince(t0) > 1000 * timeoutS)
            return error(std::to_string(pending_.size()) +
                         " messages not taken by their ranks in " + secondsText(timeoutS) +
                         " (--phase-timeout)");
        idle.pause();
    }
}

Status barrierWithin(MPI_Comm comm, double timeoutS, const char *what, bool ownCores) {
    MPI_Request request;
    MPI_Ibarrier(comm, &request);
    return waitWithin(request, timeoutS, what, ownCores);
}

Status waitWithin(MPI_Request &request, double timeoutS, const char *what, bool ownCores) {
    const auto t0 = std::chrono::steady_clock::now();
    IdleWait idle(ownCores);
    while (true) {
        int done = 0;
        MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (done)
            return Ok{};
        if (msSince(t0) > 1000 * timeoutS)
            return error(std::string("not every rank reached ") + what + " in " +
                         secondsText(timeoutS) + " (--phase-timeout)");
        idle.pause();
    }
}

} // namespace zbddc
