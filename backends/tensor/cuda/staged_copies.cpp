#include "backends/tensor/cuda/staged_copies.h"

#include "ir/try.h"
#include "support/threads.h"

#include <cstring>
#include <map>
#include <memory>

namespace zbddc::cuda {

namespace {

// A piece's DMA takes about 1.3 ms at the ~50 GB/s of a PCIe 5 copy engine: long beside a host
// function's start (tens of microseconds) and the threads a memcpy starts, small beside the tables.
constexpr size_t kPieceBytes = size_t{64} << 20;
constexpr size_t kLanesPerDirection = 2;
// One memcpy thread reaches ~10 GB/s; a few keep a lane's host half below its DMA.
constexpr unsigned kMaxCopyThreads = 8;
constexpr size_t kBytesPerCopyThread = size_t{8} << 20;

// memcpy over a few threads (one for small copies). Runs inside a host function: a thread that
// cannot be started leaves its share to the calling thread rather than throwing into the driver.
void copyInParallel(unsigned char *dst, const unsigned char *src, size_t bytes) {
    const unsigned threads = std::min(kMaxCopyThreads, threadsFor(bytes, kBytesPerCopyThread));
    try {
        inRanges(threads, bytes, [&](size_t begin, size_t end) {
            std::memcpy(dst + begin, src + begin, end - begin);
        });
    } catch (const std::system_error &) {
        std::memcpy(dst, src, bytes);
    }
}

} // namespace

Result<StagedCopies *> StagedCopies::of(Device &d) {
    static std::mutex registryMutex;
    static std::map<int, std::unique_ptr<StagedCopies>> registry; // by GPU ordinal
    std::lock_guard lock(registryMutex);
    auto &kept = registry[d.info().ordinal];
    if (!kept) {
        std::unique_ptr<StagedCopies> fresh(new StagedCopies(d));
        ZBDDC_TRY(fresh->open());
        kept = std::move(fresh);
    }
    return kept.get();
}

Status StagedCopies::open() {
    auto start = d_.createEvent(false);
    if (!start)
        return start.error();
    start_ = *start;
    for (std::vector<Lane> *lanes : {&up_, &down_})
        for (size_t i = 0; i < kLanesPerDirection; ++i) {
            Lane lane;
            auto stream = d_.createStream();
            if (!stream)
                return stream.error();
            lane.stream = *stream;
            auto piece = d_.allocatePinned(kPieceBytes);
            if (!piece)
                return piece.error();
            lane.piece = std::move(*piece);
            auto done = d_.createEvent(false);
            if (!done)
                return done.error();
            lane.done = *done;
            lanes->push_back(std::move(lane));
        }
    return Ok{};
}

StagedCopies::~StagedCopies() {
    for (std::vector<Lane> *lanes : {&up_, &down_})
        for (Lane &lane : *lanes) {
            (void)d_.destroyStream(lane.stream);
            d_.destroyEvent(lane.done);
        }
    if (start_)
        d_.destroyEvent(start_);
}

size_t StagedCopies::pinnedBytes() const { return (up_.size() + down_.size()) * kPieceBytes; }

Status StagedCopies::upload(DevicePtr dst, const void *src, size_t bytes, StreamHandle stream) {
    return copy(true, dst, static_cast<unsigned char *>(const_cast<void *>(src)), bytes, stream);
}

Status StagedCopies::download(void *dst, DevicePtr src, size_t bytes, StreamHandle stream) {
    return copy(false, src, static_cast<unsigned char *>(dst), bytes, stream);
}

Status StagedCopies::copy(bool toDevice, DevicePtr device, unsigned char *host, size_t bytes,
                          StreamHandle stream) {
    if (bytes == 0)
        return Ok{};
    std::lock_guard lock(enqueueing_);
    std::vector<Lane> &lanes = toDevice ? up_ : down_;
    const size_t pieces = (bytes + kPieceBytes - 1) / kPieceBytes;
    const size_t used = std::min(pieces, lanes.size());
    ZBDDC_TRY(d_.record(start_, stream));
    for (size_t l = 0; l < used; ++l)
        ZBDDC_TRY(d_.waitEvent(lanes[l].stream, start_));
    for (size_t p = 0; p < pieces; ++p) {
        Lane &lane = lanes[p % lanes.size()];
        const size_t at = p * kPieceBytes, n = std::min(kPieceBytes, bytes - at);
        unsigned char *piece = lane.piece.data();
        if (toDevice) {
            ZBDDC_TRY(d_.enqueueHostWork(lane.stream, [piece, from = host + at, n] {
                copyInParallel(piece, from, n);
            }));
            ZBDDC_TRY(d_.upload(device + at, piece, n, lane.stream));
        } else {
            ZBDDC_TRY(d_.download(piece, device + at, n, lane.stream));
            ZBDDC_TRY(d_.enqueueHostWork(lane.stream, [to = host + at, piece, n] {
                copyInParallel(to, piece, n);
            }));
        }
    }
    for (size_t l = 0; l < used; ++l) {
        ZBDDC_TRY(d_.record(lanes[l].done, lanes[l].stream));
        ZBDDC_TRY(d_.waitEvent(stream, lanes[l].done));
    }
    return Ok{};
}

} // namespace zbddc::cuda
