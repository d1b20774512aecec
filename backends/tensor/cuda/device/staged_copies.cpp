#include "backends/tensor/cuda/device/staged_copies.h"

#include "ir/try.h"
#include "support/threads.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <thread>

namespace zbddc::cuda {

namespace {

// A piece's DMA: ~1.3 ms at PCIe 5's ~50 GB/s, long beside a host function's start (tens of µs).
constexpr size_t kPieceBytes = size_t{64} << 20;
constexpr size_t kLanesPerDirection = 2;
// One memcpy thread moves ~5-10 GB/s and the driver has one callback thread: each memcpy is
// spread over kept threads, parts of at least kMinPartBytes.
constexpr unsigned kMaxCopyThreads = 16;
constexpr size_t kMinPartBytes = size_t{256} << 10;
// Copies up to this size skip the staging and its host function's round trip (0.2 ms a step): the
// driver stages a pageable upload itself; a pageable download waits for the stream's work.
constexpr size_t kDirectCopyBytes = size_t{4} << 20;

} // namespace

// Threads kept for the staged copies' memcpys: a host function's copy of a few MiB cannot pay for
// starting threads (tens of microseconds each). One copy at a time; the caller takes part 0.
class StagedCopies::CopyThreads {
  public:
    explicit CopyThreads(unsigned threads) {
        for (unsigned i = 1; i < threads; ++i)
            workers_.emplace_back([this, i] { serve(i); });
    }
    ~CopyThreads() {
        {
            std::lock_guard lock(m_);
            stop_ = true;
        }
        wake_.notify_all();
        for (std::thread &t : workers_)
            t.join();
    }

    void copy(unsigned char *dst, const unsigned char *src, size_t bytes) {
        const unsigned parts = static_cast<unsigned>(
            std::clamp<size_t>(bytes / kMinPartBytes, 1, workers_.size() + 1));
        if (parts == 1) {
            std::memcpy(dst, src, bytes);
            return;
        }
        std::lock_guard one(oneCopy_);
        {
            std::lock_guard lock(m_);
            job_ = {dst, src, bytes, parts};
            pending_ = parts - 1;
            ++generation_;
        }
        wake_.notify_all();
        copyPart(job_, 0);
        std::unique_lock lock(m_);
        done_.wait(lock, [&] { return pending_ == 0; });
    }

  private:
    struct Job {
        unsigned char *dst = nullptr;
        const unsigned char *src = nullptr;
        size_t bytes = 0;
        unsigned parts = 0;
    };
    static void copyPart(const Job &job, unsigned part) {
        const size_t begin = job.bytes * part / job.parts, end = job.bytes * (part + 1) / job.parts;
        std::memcpy(job.dst + begin, job.src + begin, end - begin);
    }
    // Worker `index` copies part `index` of each job that has that many parts.
    void serve(unsigned index) {
        uint64_t seen = 0;
        while (true) {
            Job job;
            {
                std::unique_lock lock(m_);
                wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
                if (stop_)
                    return;
                seen = generation_;
                job = job_;
            }
            if (index >= job.parts)
                continue;
            copyPart(job, index);
            std::lock_guard lock(m_);
            if (--pending_ == 0)
                done_.notify_one();
        }
    }

    std::mutex oneCopy_, m_;
    std::condition_variable wake_, done_;
    Job job_;
    uint64_t generation_ = 0;
    unsigned pending_ = 0;
    bool stop_ = false;
    std::vector<std::thread> workers_;
};

// Kept for the whole process, never destroyed (as devices are not): no stream is destroyed after
// the driver's own teardown.
Result<StagedCopies *> StagedCopies::of(Device &d) {
    static std::mutex registryMutex;
    static auto *registry = new std::map<int, std::unique_ptr<StagedCopies>>; // by GPU ordinal
    std::lock_guard lock(registryMutex);
    auto &kept = (*registry)[d.info().ordinal];
    if (!kept) {
        std::unique_ptr<StagedCopies> fresh(new StagedCopies(d));
        ZBDDC_TRY(fresh->open());
        kept = std::move(fresh);
    }
    return kept.get();
}

Status StagedCopies::open() {
    threads_ = std::make_unique<CopyThreads>(std::min(kMaxCopyThreads, threadsOrCores(0)));
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

StagedCopies::StagedCopies(Device &d) : d_(d) {}
StagedCopies::~StagedCopies() = default;

size_t StagedCopies::pinnedBytes() const { return (up_.size() + down_.size()) * kPieceBytes; }

Status StagedCopies::upload(DevicePtr dst, const void *src, size_t bytes, StreamHandle stream) {
    if (bytes <= kDirectCopyBytes)
        return d_.upload(dst, src, bytes, stream);
    return copy(true, dst, static_cast<unsigned char *>(const_cast<void *>(src)), bytes, stream);
}

Status StagedCopies::download(void *dst, DevicePtr src, size_t bytes, StreamHandle stream) {
    if (bytes <= kDirectCopyBytes)
        return d_.download(dst, src, bytes, stream);
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
            ZBDDC_TRY(d_.enqueueHostWork(lane.stream, [this, piece, from = host + at, n] {
                threads_->copy(piece, from, n);
            }));
            ZBDDC_TRY(d_.upload(device + at, piece, n, lane.stream));
        } else {
            ZBDDC_TRY(d_.download(piece, device + at, n, lane.stream));
            ZBDDC_TRY(d_.enqueueHostWork(lane.stream, [this, to = host + at, piece, n] {
                threads_->copy(to, piece, n);
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
