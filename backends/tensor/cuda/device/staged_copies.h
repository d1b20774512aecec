// Copies between pageable host tables and one GPU through page-locked pieces allocated once per GPU
// and reused for the whole process. The out-of-core path's host tables are never pinned
// themselves: page-locking them in place cost most of a large out-of-core run (97 of 105 s for
// 104 GiB of tables on an H100), and every run paid it again.
//
// A copy is cut into pieces that take the lanes in turn. A lane is a stream and one pinned piece;
// each piece's host half (a memcpy into or out of the piece, spread over threads kept for it)
// runs as host work in the lane's stream order (Device::enqueueHostWork), so the caller only
// enqueues, and one lane's DMA overlaps the other lane's memcpy. The first write into a host
// table is such a memcpy, so its pages are first touched by those threads, in parallel, not by a
// zero fill.
#pragma once

#include "backends/cuda/driver.h"

#include <memory>
#include <mutex>
#include <vector>

namespace zbddc::cuda {

class StagedCopies {
  public:
    // The GPU's staging (its lanes and pinned pieces), created on first use.
    static Result<StagedCopies *> of(Device &d);

    StagedCopies(const StagedCopies &) = delete;
    StagedCopies &operator=(const StagedCopies &) = delete;
    ~StagedCopies(); // never run: of() keeps each GPU's staging for the process

    // Both in `stream`'s order: the copy starts after the work enqueued on `stream` before it,
    // and the work enqueued on `stream` after it waits for the whole copy, host half included.
    // `src` (upload) and `dst` (download) must stay valid until then. Small copies go straight
    // (the driver stages them); a small download is then complete on return.
    Status upload(DevicePtr dst, const void *src, size_t bytes, StreamHandle stream);
    Status download(void *dst, DevicePtr src, size_t bytes, StreamHandle stream);

    // Page-locked bytes this GPU's staging holds (allocated once).
    size_t pinnedBytes() const;

  private:
    struct Lane {
        StreamHandle stream = nullptr;
        PinnedBuffer piece;
        EventHandle done = nullptr; // recorded after the lane's part of the latest copy
    };
    explicit StagedCopies(Device &d);
    Status open();
    Status copy(bool toDevice, DevicePtr device, unsigned char *host, size_t bytes,
                StreamHandle stream);

    class CopyThreads;

    Device &d_;
    std::unique_ptr<CopyThreads> threads_; // the host halves' memcpys
    std::vector<Lane> up_, down_;
    EventHandle start_ = nullptr; // recorded on the caller's stream: where the lanes start
    std::mutex enqueueing_;       // a copy's pieces are enqueued together
};

} // namespace zbddc::cuda
