#include "backends/tensor/cuda/level_launch.h"

#include "support/timer.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace zbddc::cuda {

namespace {
constexpr size_t kMaxStreams = 8;
} // namespace

bool gpuGraphsWanted(bool byDefault) {
    const char *v = std::getenv("ZBDDC_GPU_GRAPH");
    return v && *v ? std::strcmp(v, "0") != 0 : byDefault;
}

LevelLauncher::~LevelLauncher() {
    for (EventHandle e : done_)
        device_.destroyEvent(e);
    if (joined_)
        device_.destroyEvent(joined_);
    for (StreamHandle s : streams_)
        (void)device_.destroyStream(s);
}

Status LevelLauncher::ensureStreams(size_t n) {
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
    return Ok{};
}

// Stream 0 carries the order: a level that used streams 1..k-1 is joined into stream 0 (it waits on
// their events), and the next level's other streams wait on stream 0 before their first op. A
// chain of one-op levels stays on stream 0 and needs no event at all.
Status LevelLauncher::enqueueAll(std::span<const std::vector<uint32_t>> levels,
                                 const EnqueueOp &enqueue, LevelLaunchStats &st) {
    for (const std::vector<uint32_t> &level : levels) {
        const size_t width = std::min(level.size(), streams_.size());
        if (width > 1) { // fork: streams 1.. must see everything before this level
            if (Status s = device_.record(joined_, streams_[0]); !s)
                return s;
            for (size_t i = 1; i < width; ++i)
                if (Status s = device_.waitEvent(streams_[i], joined_); !s)
                    return s;
        }
        for (size_t i = 0; i < level.size(); ++i)
            if (Status s = enqueue(level[i], streams_[i % width]); !s)
                return s;
        st.ops += level.size();
        for (size_t i = 1; i < width; ++i) { // join back into stream 0
            if (Status s = device_.record(done_[i], streams_[i]); !s)
                return s;
            if (Status s = device_.waitEvent(streams_[0], done_[i]); !s)
                return s;
        }
        st.joins += width > 1;
    }
    return Ok{};
}

Status LevelLauncher::run(std::span<const std::vector<uint32_t>> levels, const EnqueueOp &enqueue,
                          bool graph, LevelLaunchStats *stats, const AfterOps &after) {
    LevelLaunchStats local;
    LevelLaunchStats &st = stats ? *stats : local;
    size_t widest = 1, ops = 0;
    for (const auto &level : levels) {
        widest = std::max(widest, level.size());
        ops += level.size();
    }
    if (Status s = ensureStreams(widest); !s)
        return s;
    if (graph && ops > 0) {
        const auto t0 = std::chrono::steady_clock::now();
        LevelLaunchStats captured;
        Status began = device_.beginCapture(streams_[0]);
        Status enqueued = began ? enqueueAll(levels, enqueue, captured) : began;
        // The capture must end whatever happened, or the stream stays in capture mode.
        auto exec = began ? device_.endCapture(streams_[0]) : Result<GraphHandle>(began.error());
        if (enqueued && exec) {
            captured.graph = true;
            captured.captureMs = msSince(t0);
            Status launched = device_.launchGraph(*exec, streams_[0]);
            if (launched && after)
                launched = after(streams_[0]);
            Status waited = launched ? device_.synchronize(streams_[0]) : launched;
            device_.destroyGraph(*exec);
            st = captured;
            return waited;
        }
        if (exec)
            device_.destroyGraph(*exec);
        // No graph (a driver that refuses the capture, say): the same work enqueued directly. An
        // error of the ops themselves recurs there and is reported from there.
    }
    if (Status s = enqueueAll(levels, enqueue, st); !s)
        return s;
    if (after)
        if (Status s = after(streams_[0]); !s)
            return s;
    return device_.synchronize(streams_[0]);
}

} // namespace zbddc::cuda
