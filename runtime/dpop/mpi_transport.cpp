#include "runtime/dpop/mpi_transport.h"

#include "support/timer.h"

#include <chrono>
#include <climits>
#include <thread>

namespace zbddc {

namespace {
constexpr int kTag = 71; // DPOP's messages; the run's own communicator carries nothing else
}

MpiTransport::MpiTransport(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &size_);
}

Status MpiTransport::send(int rank, std::vector<std::byte> bytes) {
    if (bytes.size() > static_cast<size_t>(INT_MAX))
        return error("a message of " + std::to_string(bytes.size()) +
                     " bytes, beyond what one MPI send carries");
    ++messagesSent;
    bytesSent += bytes.size();
    Pending &p = pending_.emplace_back();
    p.bytes = std::move(bytes);
    if (MPI_Isend(p.bytes.data(), static_cast<int>(p.bytes.size()), MPI_BYTE, rank, kTag, comm_,
                  &p.request) != MPI_SUCCESS)
        return error("MPI_Isend to rank " + std::to_string(rank) + " failed");
    reapSends();
    return Ok{};
}

void MpiTransport::reapSends() {
    for (auto it = pending_.begin(); it != pending_.end();) {
        int done = 0;
        MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
        it = done ? pending_.erase(it) : std::next(it);
    }
}

Result<std::optional<std::vector<std::byte>>> MpiTransport::poll() {
    reapSends();
    int flag = 0;
    MPI_Status status;
    if (MPI_Iprobe(MPI_ANY_SOURCE, kTag, comm_, &flag, &status) != MPI_SUCCESS)
        return error("MPI_Iprobe failed");
    if (!flag)
        return std::optional<std::vector<std::byte>>();
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    std::vector<std::byte> bytes(static_cast<size_t>(count));
    if (MPI_Recv(bytes.data(), count, MPI_BYTE, status.MPI_SOURCE, kTag, comm_,
                 MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return error("MPI_Recv from rank " + std::to_string(status.MPI_SOURCE) + " failed");
    return std::optional<std::vector<std::byte>>(std::move(bytes));
}

Status MpiTransport::flush(double timeoutS) {
    const auto t0 = std::chrono::steady_clock::now();
    while (true) {
        reapSends();
        if (pending_.empty())
            return Ok{};
        if (msSince(t0) > 1000 * timeoutS)
            return error(std::to_string(pending_.size()) +
                         " messages not taken by their ranks in " + secondsText(timeoutS) +
                         " (--phase-timeout)");
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
}

Status barrierWithin(MPI_Comm comm, double timeoutS, const char *what) {
    MPI_Request request;
    MPI_Ibarrier(comm, &request);
    const auto t0 = std::chrono::steady_clock::now();
    int sleepUs = 20;
    while (true) {
        int done = 0;
        MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (done)
            return Ok{};
        if (msSince(t0) > 1000 * timeoutS)
            return error(std::string("not every rank reached ") + what + " in " +
                         secondsText(timeoutS) + " (--phase-timeout)");
        std::this_thread::sleep_for(std::chrono::microseconds(sleepUs));
        sleepUs = std::min(sleepUs * 2, 2000);
    }
}

} // namespace zbddc
