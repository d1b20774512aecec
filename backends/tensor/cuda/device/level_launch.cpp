#include "backends/tensor/cuda/device/level_launch.h"

#include "ir/try.h"

#include <algorithm>

namespace zbddc::cuda {

namespace {
constexpr size_t kMaxStreams = 8;
} // namespace

LevelLauncher::~LevelLauncher() {
    for (EventHandle e : done_)
        device_.destroyEvent(e);
    if (joined_)
        device_.destroyEvent(joined_);
    for (StreamHandle s : streams_)
        (void)device_.destroyStream(s);
}

Result<StreamHandle> LevelLauncher::entry(size_t n) {
    n = std::max<size_t>(n, 1);
    if (!joined_) {
        auto e = device_.createEvent(false);
        if (!e)
            return e.error();
        joined_ = *e;
    }
    while (streams_.size() < std::min(n, kMaxStreams)) {
        auto s = device_.createStream();
        if (!s)
            return s.error();
        streams_.push_back(*s);
        auto e = device_.createEvent(false);
        if (!e)
            return e.error();
        done_.push_back(*e);
    }
    return streams_[0];
}

// Stream 0 carries the order: a level that used streams 1..k-1 is joined into it by their events,
// and the next level's other streams wait on it; one-unit levels stay on stream 0, no event.
Status LevelLauncher::enqueueLevel(std::span<const uint32_t> level, const EnqueueOp &enqueue) {
    if (streams_.empty())
        return error("internal error: a level enqueued before the launcher's streams exist");
    const size_t width = std::min(level.size(), streams_.size());
    if (width > 1) { // fork: streams 1.. must see everything before this level
        ZBDDC_TRY(device_.record(joined_, streams_[0]));
        for (size_t i = 1; i < width; ++i)
            ZBDDC_TRY(device_.waitEvent(streams_[i], joined_));
    }
    for (size_t i = 0; i < level.size(); ++i)
        ZBDDC_TRY(enqueue(level[i], streams_[i % width]));
    for (size_t i = 1; i < width; ++i) { // join back into stream 0
        ZBDDC_TRY(device_.record(done_[i], streams_[i]));
        ZBDDC_TRY(device_.waitEvent(streams_[0], done_[i]));
    }
    return Ok{};
}

Status LevelLauncher::synchronizeAll() {
    for (StreamHandle s : streams_)
        ZBDDC_TRY(device_.synchronize(s));
    return Ok{};
}

} // namespace zbddc::cuda
