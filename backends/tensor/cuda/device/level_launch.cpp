#include "backends/tensor/cuda/device/level_launch.h"

#include "ir/try.h"
#include "support/timer.h"

#include <algorithm>
#include <chrono>

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

StreamPlan planStreams(std::span<const std::vector<uint32_t>> levels,
                       std::span<const std::vector<uint32_t>> producersOf, size_t maxStreams) {
    const size_t units = producersOf.size();
    maxStreams = std::max<size_t>(maxStreams, 1);
    StreamPlan plan;
    plan.streamOf.assign(units, 0);
    plan.waitFor.resize(units);
    plan.recordAfter.assign(units, false);
    constexpr int64_t kNever = -1;
    std::vector<int64_t> lastUnit(maxStreams, kNever), lastLevel(maxStreams, kNever);
    std::vector<size_t> length(maxStreams, 0), positionOf(units, 0);
    // waited[s][t]: stream s has waited for stream t's units before this position.
    std::vector<std::vector<size_t>> waited(maxStreams, std::vector<size_t>(maxStreams, 0));
    for (size_t l = 0; l < levels.size(); ++l) {
        const auto level = static_cast<int64_t>(l);
        for (size_t i = 0; i < levels[l].size(); ++i) {
            const uint32_t u = levels[l][i];
            size_t s = maxStreams;
            for (uint32_t p : producersOf[u]) // continue a producer's chain
                if (const size_t ps = plan.streamOf[p];
                    lastUnit[ps] == static_cast<int64_t>(p) && lastLevel[ps] < level) {
                    s = ps;
                    break;
                }
            for (size_t c = 0; s == maxStreams && c < maxStreams; ++c) // else the longest unused
                if (lastLevel[c] < level) {
                    s = c;
                    for (size_t d = c + 1; d < maxStreams; ++d)
                        if (lastLevel[d] < lastLevel[s])
                            s = d;
                }
            if (s == maxStreams) // more units than streams: they share
                s = i % maxStreams;
            plan.streamOf[u] = static_cast<uint32_t>(s);
            positionOf[u] = length[s]++;
            lastUnit[s] = u;
            lastLevel[s] = level;
            plan.streams = std::max(plan.streams, s + 1);
            for (uint32_t p : producersOf[u]) {
                const size_t ps = plan.streamOf[p];
                if (ps == s || waited[s][ps] > positionOf[p])
                    continue;
                plan.waitFor[u].push_back(p);
                plan.recordAfter[p] = true;
                waited[s][ps] = positionOf[p] + 1;
            }
        }
    }
    return plan;
}

Result<EventHandle> LevelLauncher::unitEvent(size_t i) {
    while (unitEvents_.size() <= i) {
        auto e = device_.createEvent(false);
        if (!e)
            return e.error();
        unitEvents_.push_back(*e);
    }
    return unitEvents_[i];
}

// The streams a plan uses fork from stream 0 (they see what it has before, and join a capture
// begun on it) and join back into it at the end.
Status LevelLauncher::enqueuePlanned(std::span<const std::vector<uint32_t>> levels,
                                     const StreamPlan &plan, const EnqueueOp &enqueue,
                                     LevelLaunchStats &st) {
    if (plan.streams > 1) {
        ZBDDC_TRY(device_.record(joined_, streams_[0]));
        for (size_t s = 1; s < plan.streams; ++s)
            ZBDDC_TRY(device_.waitEvent(streams_[s], joined_));
    }
    std::vector<EventHandle> eventOf(plan.streamOf.size(), nullptr);
    size_t events = 0;
    for (const std::vector<uint32_t> &level : levels)
        for (uint32_t u : level) {
            StreamHandle stream = streams_[plan.streamOf[u]];
            for (uint32_t p : plan.waitFor[u])
                ZBDDC_TRY(device_.waitEvent(stream, eventOf[p]));
            ZBDDC_TRY(enqueue(u, stream));
            ++st.ops;
            if (!plan.recordAfter[u])
                continue;
            auto e = unitEvent(events++);
            if (!e)
                return e.error();
            ZBDDC_TRY(device_.record(*e, stream));
            eventOf[u] = *e;
        }
    for (size_t s = 1; s < plan.streams; ++s) {
        ZBDDC_TRY(device_.record(done_[s], streams_[s]));
        ZBDDC_TRY(device_.waitEvent(streams_[0], done_[s]));
    }
    st.joins = events;
    return Ok{};
}

// Stream 0 carries the order: a level that used streams 1..k-1 is joined into stream 0 (it waits on
// their events), and the next level's other streams wait on stream 0 before their first op. A
// chain of one-op levels stays on stream 0 and needs no event at all.
Status LevelLauncher::enqueueAll(std::span<const std::vector<uint32_t>> levels,
                                 const EnqueueOp &enqueue, LevelLaunchStats &st) {
    for (const std::vector<uint32_t> &level : levels)
        ZBDDC_TRY(enqueueOne(level, enqueue, st));
    return Ok{};
}

Status LevelLauncher::enqueueOne(std::span<const uint32_t> level, const EnqueueOp &enqueue,
                                 LevelLaunchStats &st) {
    const size_t width = std::min(level.size(), streams_.size());
    if (width > 1) { // fork: streams 1.. must see everything before this level
        ZBDDC_TRY(device_.record(joined_, streams_[0]));
        for (size_t i = 1; i < width; ++i)
            ZBDDC_TRY(device_.waitEvent(streams_[i], joined_));
    }
    for (size_t i = 0; i < level.size(); ++i)
        ZBDDC_TRY(enqueue(level[i], streams_[i % width]));
    st.ops += level.size();
    for (size_t i = 1; i < width; ++i) { // join back into stream 0
        ZBDDC_TRY(device_.record(done_[i], streams_[i]));
        ZBDDC_TRY(device_.waitEvent(streams_[0], done_[i]));
    }
    st.joins += width > 1;
    return Ok{};
}

Status LevelLauncher::enqueueLevel(std::span<const uint32_t> units, const EnqueueOp &enqueue) {
    if (streams_.empty())
        return error("internal error: a level enqueued before the launcher's streams exist");
    LevelLaunchStats unused;
    return enqueueOne(units, enqueue, unused);
}

Status LevelLauncher::synchronizeAll() {
    for (StreamHandle s : streams_)
        ZBDDC_TRY(device_.synchronize(s));
    return Ok{};
}

Result<StreamHandle> LevelLauncher::entry(size_t streams) {
    ZBDDC_TRY(ensureStreams(std::max<size_t>(streams, 1)));
    return streams_[0];
}

Status LevelLauncher::run(std::span<const std::vector<uint32_t>> levels, const EnqueueOp &enqueue,
                          bool graph, LevelLaunchStats *stats, const AfterOps &after,
                          std::span<const std::vector<uint32_t>> producersOf) {
    LevelLaunchStats local;
    LevelLaunchStats &st = stats ? *stats : local;
    size_t widest = 1, ops = 0;
    for (const auto &level : levels) {
        widest = std::max(widest, level.size());
        ops += level.size();
    }
    const bool planned = !producersOf.empty();
    const StreamPlan plan = planned ? planStreams(levels, producersOf, kMaxStreams) : StreamPlan{};
    if (Status s = ensureStreams(planned ? plan.streams : widest); !s)
        return s;
    const auto enqueueAllOf = [&](LevelLaunchStats &into) {
        return planned ? enqueuePlanned(levels, plan, enqueue, into)
                       : enqueueAll(levels, enqueue, into);
    };
    if (graph && ops > 0) {
        const auto t0 = std::chrono::steady_clock::now();
        LevelLaunchStats captured;
        Status began = device_.beginCapture(streams_[0]);
        Status enqueued = began ? enqueueAllOf(captured) : began;
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
    if (Status s = enqueueAllOf(st); !s)
        return s;
    if (after)
        if (Status s = after(streams_[0]); !s)
            return s;
    return device_.synchronize(streams_[0]);
}

} // namespace zbddc::cuda
