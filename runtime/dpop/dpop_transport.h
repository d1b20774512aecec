// How one rank's agents reach agents on other ranks: non-blocking sends and a poll, so that the
// protocol loop (dpop_rank.h) never blocks on a message that may never come. The MPI transport
// (mpi_transport.h) is the real one; a run on one rank needs none.
#pragma once

#include "ir/result.h"
#include "runtime/dpop/dpop_message.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace zbddc {

class DpopTransport {
  public:
    virtual ~DpopTransport() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    // Queues `wire` for `rank` and returns at once.
    virtual Status send(int rank, DpopWire wire) = 0;
    // One message that has arrived, or none.
    virtual Result<std::optional<DpopWire>> poll() = 0;
    // Waits until every queued send has left, for at most `timeoutS` seconds.
    virtual Status flush(double timeoutS) = 0;
    uint64_t messagesSent = 0, bytesSent = 0; // what crossed between ranks
};

// "60 s": a timeout as the errors print it.
inline std::string secondsText(double s) {
    char text[32];
    std::snprintf(text, sizeof text, "%g s", s);
    return text;
}

} // namespace zbddc
