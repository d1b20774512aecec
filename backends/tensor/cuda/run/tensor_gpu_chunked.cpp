#include "backends/tensor/cuda/run/tensor_gpu_chunked.h"

#include "backends/tensor/cuda/device/staged_copies.h"
#include "ir/try.h"

#include <algorithm>
#include <chrono>
#include <optional>

namespace zbddc::cuda {

namespace {

// Events created on demand and destroyed with the executor; timed copy spans summed at the end.
class Events {
  public:
    explicit Events(Device &d) : d_(d) {}
    Events(const Events &) = delete;
    Events &operator=(const Events &) = delete;
    ~Events() {
        for (EventHandle e : owned_)
            d_.destroyEvent(e);
    }
    Result<EventHandle> make(bool timing) {
        auto e = d_.createEvent(timing);
        if (e)
            owned_.push_back(*e);
        return e;
    }

  private:
    Device &d_;
    std::vector<EventHandle> owned_;
};

// A copy on `stream`, bracketed by timing events when `spans` is given (copy-engine busy time).
template <class Copy>
Status timedCopy(Device &d, Events &events, StreamHandle stream,
                 std::vector<std::pair<EventHandle, EventHandle>> *spans, Copy &&copy) {
    EventHandle start = nullptr, stop = nullptr;
    if (spans) {
        auto a = events.make(true), b = events.make(true);
        if (!a)
            return a.error();
        if (!b)
            return b.error();
        start = *a;
        stop = *b;
        if (Status s = d.record(start, stream); !s)
            return s;
    }
    if (Status s = copy(); !s)
        return s;
    if (spans) {
        if (Status s = d.record(stop, stream); !s)
            return s;
        spans->push_back({start, stop});
    }
    return Ok{};
}

Result<double> spanMs(Device &d, const std::vector<std::pair<EventHandle, EventHandle>> &spans) {
    double ms = 0;
    for (auto [a, b] : spans) {
        auto t = d.elapsed(a, b);
        if (!t)
            return t.error();
        ms += *t;
    }
    return ms;
}

unsigned gridFor(uint64_t rows, bool warp, unsigned block, unsigned maxGrid) {
    const uint64_t threads = rows * (warp ? 32 : 1);
    return static_cast<unsigned>(std::clamp<uint64_t>((threads + block - 1) / block, 1, maxGrid));
}

// One in-flight step's device buffers, stream and ordering events.
struct Slot {
    std::vector<DeviceBuffer> slices; // by input (empty for resident inputs)
    DeviceBuffer out, list;
    StreamHandle stream = nullptr;
    EventHandle uploaded = nullptr, computed = nullptr, downloaded = nullptr;
};

} // namespace

Result<HostTables> runChunkedOnDevice(Device &d, const TensorModules &module,
                                      const TensorProgram &program, const ChunkPlan &plan,
                                      const GpuExecOptions &options, GpuExecStats &st) {
    const auto t0 = std::chrono::steady_clock::now();
    HostTables host(program);
    auto staging = StagedCopies::of(d);
    if (!staging)
        return staging.error();
    st.pinnedBytes = (*staging)->pinnedBytes();
    st.hostPrepMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                        .count();
    Events events(d);
    std::vector<std::pair<EventHandle, EventHandle>> upSpans, downSpans;
    auto *upTimes = options.timeCopies ? &upSpans : nullptr;
    auto *downTimes = options.timeCopies ? &downSpans : nullptr;
    auto h2d = d.createStream();
    if (!h2d)
        return h2d.error();
    auto d2h = d.createStream();
    if (!d2h)
        return d2h.error();
    std::vector<StreamHandle> streams{*h2d, *d2h};
    struct StreamsGuard {
        Device &d;
        std::vector<StreamHandle> &s;
        ~StreamsGuard() {
            for (StreamHandle h : s)
                (void)d.destroyStream(h);
        }
    } guard{d, streams};
    std::vector<StreamHandle> compute;
    const unsigned block = options.kernels.blockThreads;
    const unsigned maxGrid = static_cast<unsigned>(d.info().multiprocessors) * 32;

    for (const auto &level : program.levels)
        for (const uint32_t o : level) {
            const TensorOp &op = program.ops[o];
            const OpChunkPlan &cp = plan.ops[o];
            const size_t k = op.inputs.size();
            // Resident inputs, uploaded once for the op.
            std::vector<DeviceBuffer> resident(k);
            for (size_t j = 0; j < k; ++j) {
                if (cp.inputSliced[j])
                    continue;
                const uint64_t bytes = program.tables[op.inputs[j]].entries() * sizeof(double);
                auto buf = d.allocate(std::max<size_t>(bytes, 1));
                if (!buf)
                    return buf.error();
                resident[j] = std::move(*buf);
                ZBDDC_TRY(timedCopy(d, events, *h2d, upTimes, [&] {
                    return (*staging)->upload(resident[j].ptr(), host.data(op.inputs[j]), bytes,
                                              *h2d);
                }));
                st.uploadBytes += bytes;
            }
            auto residentDone = events.make(false);
            if (!residentDone)
                return residentDone.error();
            ZBDDC_TRY(d.record(*residentDone, *h2d));
            // The slots: buffers for one step each, a compute stream each.
            while (compute.size() < cp.inFlight) {
                auto s = d.createStream();
                if (!s)
                    return s.error();
                compute.push_back(*s);
                streams.push_back(*s);
            }
            std::vector<Slot> slots(cp.inFlight);
            for (uint32_t i = 0; i < cp.inFlight; ++i) {
                Slot &slot = slots[i];
                slot.stream = compute[i];
                slot.slices.resize(k);
                for (size_t j = 0; j < k; ++j)
                    if (cp.inputSliced[j]) {
                        auto buf = d.allocate(cp.inputRows[j] * sizeof(double));
                        if (!buf)
                            return buf.error();
                        slot.slices[j] = std::move(*buf);
                    }
                auto out = d.allocate(cp.chunkRows * sizeof(double));
                auto list = d.allocate(std::max<size_t>(k, 1) * sizeof(DevicePtr));
                if (!out)
                    return out.error();
                if (!list)
                    return list.error();
                slot.out = std::move(*out);
                slot.list = std::move(*list);
                for (EventHandle *e : {&slot.uploaded, &slot.computed, &slot.downloaded}) {
                    auto ev = events.make(false);
                    if (!ev)
                        return ev.error();
                    *e = *ev;
                }
                ZBDDC_TRY(d.waitEvent(slot.stream, *residentDone));
            }
            // Each step's pointer list in pinned memory: the async upload reads it later.
            auto lists = d.allocatePinned(std::max<uint64_t>(cp.steps() * k, 1) * sizeof(DevicePtr));
            if (!lists)
                return lists.error();
            auto *listHost = reinterpret_cast<DevicePtr *>(lists->data());
            auto f = module.function(o);
            if (!f)
                return f.error();
            if (!module.shapeOf(o).empty())
                return error("internal error: op " + std::to_string(o) +
                             " has a generic kernel on the out-of-core path");
            const bool warp = usesWarpPerRow(program, o, options.kernels);
            double *output = host.allocate(op.output); // first touched by the downloads
            // Download engine: chunk c, finished, back into the host table.
            const auto download = [&](uint64_t c) -> Status {
                Slot &slot = slots[c % cp.inFlight];
                ZBDDC_TRY(d.waitEvent(*d2h, slot.computed));
                double *dst = output + c * cp.chunkRows;
                if (Status down = timedCopy(d, events, *d2h, downTimes, [&] {
                        return (*staging)->download(dst, slot.out.ptr(),
                                                    cp.chunkRows * sizeof(double), *d2h);
                    });
                    !down)
                    return error(down.error().message + " (op " + std::to_string(o) + ", chunk " +
                                 std::to_string(c) + " of " + std::to_string(cp.chunks) + ", " +
                                 std::to_string(cp.chunkRows * sizeof(double)) + " bytes)");
                st.downloadBytes += cp.chunkRows * sizeof(double);
                return d.record(slot.downloaded, *d2h);
            };
            std::optional<uint64_t> pending;
            uint64_t step = 0;
            for (uint64_t c = 0; c < cp.chunks; ++c) {
                Slot &slot = slots[c % cp.inFlight];
                for (uint64_t s = 0; s < cp.elimSlices; ++s, ++step) {
                    // Upload engine: the slot's last kernel must have read its buffers.
                    ZBDDC_TRY(d.waitEvent(*h2d, slot.computed));
                    DevicePtr *ptrs = listHost + step * k;
                    for (size_t j = 0; j < k; ++j) {
                        if (!cp.inputSliced[j]) {
                            ptrs[j] = resident[j].ptr();
                            continue;
                        }
                        const RowRange r = inputRange(program, o, cp, j, c, s);
                        const double *src = host.data(op.inputs[j]) + r.first;
                        ZBDDC_TRY(timedCopy(d, events, *h2d, upTimes, [&] {
                            return (*staging)->upload(slot.slices[j].ptr(), src,
                                                      r.rows * sizeof(double), *h2d);
                        }));
                        st.uploadBytes += r.rows * sizeof(double);
                        // The kernel indexes the whole table: point before the slice's start.
                        ptrs[j] = slot.slices[j].ptr() - r.first * sizeof(double);
                    }
                    if (k)
                        ZBDDC_TRY(d.upload(slot.list.ptr(), ptrs, k * sizeof(DevicePtr), *h2d));
                    ZBDDC_TRY(d.record(slot.uploaded, *h2d));
                    // Compute: after the upload, and (first slice of a chunk) after the slot's
                    // previous chunk left the output buffer.
                    ZBDDC_TRY(d.waitEvent(slot.stream, slot.uploaded));
                    if (s == 0)
                        ZBDDC_TRY(d.waitEvent(slot.stream, slot.downloaded));
                    DevicePtr in = slot.list.ptr(), out = slot.out.ptr();
                    unsigned long long rowBegin = c * cp.chunkRows, count = cp.chunkRows;
                    unsigned long long elimBegin = s * cp.elimValues, elimCount = cp.elimValues;
                    void *args[] = {&in, &out, &rowBegin, &count, &elimBegin, &elimCount};
                    ZBDDC_TRY(d.launch(*f, {gridFor(count, warp, block, maxGrid), block, 0}, args,
                                       slot.stream));
                    ZBDDC_TRY(d.record(slot.computed, slot.stream));
                    ++st.chunks;
                    if (s + 1 < cp.elimSlices)
                        continue;
                    // A chunk's download is enqueued once the next chunk's kernel is, where the
                    // slot is not that chunk's: a small download returns only once done (the
                    // staging's direct copies), and the device then has the next step queued.
                    if (cp.inFlight == 1) {
                        ZBDDC_TRY(download(c));
                    } else {
                        if (pending)
                            ZBDDC_TRY(download(*pending));
                        pending = c;
                    }
                }
            }
            if (pending)
                ZBDDC_TRY(download(*pending));
            // The next op reads this one's output from the host, and the buffers go back to the
            // pool when this scope ends: wait for everything enqueued.
            for (StreamHandle s : streams)
                ZBDDC_TRY(d.synchronize(s));
            st.maxInFlight = std::max(st.maxInFlight, cp.inFlight);
        }
    st.kernelMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                      .count(); // uploads, kernels and downloads overlap here: one figure
    if (options.timeCopies) {
        auto up = spanMs(d, upSpans);
        if (!up)
            return up.error();
        auto down = spanMs(d, downSpans);
        if (!down)
            return down.error();
        st.uploadMs = *up;
        st.downloadMs = *down;
    }
    return host;
}

} // namespace zbddc::cuda
