// DpopTransport over MPI: MPI_Isend (a send never waits for its receiver, so two ranks sending
// each other large UTIL tables cannot deadlock) and MPI_Iprobe polls, on a communicator of its
// own. A message is two MPI messages: its head with its table's length appended, then the table
// as doubles, sent from and received into the table's own vector.
#pragma once

#include "runtime/dpop/dpop_transport.h"

#include <mpi.h>

#include <list>

namespace zbddc {

class MpiTransport final : public DpopTransport {
  public:
    // ownCores: every rank of the host has a core to itself (idle_wait.h).
    MpiTransport(MPI_Comm comm, bool ownCores);
    int rank() const override { return rank_; }
    int size() const override { return size_; }
    Status send(int rank, DpopWire wire) override;
    Result<std::optional<DpopWire>> poll() override;
    Status flush(double timeoutS) override;

  private:
    struct Pending {
        DpopWire wire;
        MPI_Request requests[2]; // the head's, the table's (MPI_REQUEST_NULL where none)
    };
    void reapSends();
    MPI_Comm comm_;
    bool ownCores_;
    int rank_ = 0, size_ = 1;
    std::list<Pending> pending_; // stable addresses: MPI holds the buffers until the sends end
};

// Waits for every rank to arrive, for at most `timeoutS` seconds (MPI_Ibarrier polled): a rank
// that died or hangs then ends the run with an error rather than a hang. Idle as idle_wait.h says.
Status barrierWithin(MPI_Comm comm, double timeoutS, const char *what, bool ownCores);
// Waits for a non-blocking collective that every rank must join (`what` as above), likewise.
Status waitWithin(MPI_Request &request, double timeoutS, const char *what, bool ownCores);

} // namespace zbddc
