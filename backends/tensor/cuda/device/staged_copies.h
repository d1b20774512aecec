// Copies between pageable host tables and one GPU through page-locked pieces allocated once per GPU
// for the process (pinning the out-of-core tables in place cost 97 of a 105 s run). A copy's
// pieces take the lanes (a stream and a pinned piece each) in turn; each piece's memcpy runs on
// kept threads as host work in the lane's stream order, so one lane's DMA overlaps another's
// memcpy and a host table's pages are first touched in parallel.
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
