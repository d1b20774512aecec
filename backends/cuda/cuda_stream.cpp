// Asynchronous and streamed evaluation (batches of any length, copies overlapping kernels): two
// stream slots, each with its own value buffer, grid-barrier word and pinned host staging, so batch
// i+1's copies in and out run while batch i's kernels do, and the host converts batch i+2
// meanwhile. Only two batches live on the device, so a stream of any length fits.
#include "backends/cuda/cuda_model.h"

#include <algorithm>

namespace zbddc::cuda {

CudaModel::StreamSlot &CudaModel::StreamSlot::operator=(StreamSlot &&o) noexcept {
    if (this != &o) {
        this->~StreamSlot();
        device = std::exchange(o.device, nullptr);
        stream = std::exchange(o.stream, nullptr);
        values = std::move(o.values);
        barrier = std::move(o.barrier);
        in = std::move(o.in);
        out = std::move(o.out);
        params = o.params;
        count = std::exchange(o.count, 0);
    }
    return *this;
}

CudaModel::StreamSlot::~StreamSlot() {
    if (stream) {
        (void)device->synchronize(stream); // its buffers must outlive the work enqueued on them
        (void)device->destroyStream(stream);
    }
    stream = nullptr;
}

Result<CudaModel::StreamSlot *> CudaModel::streamSlot(unsigned slot) {
    if (slot >= kStreamSlots)
        return error("stream slot " + std::to_string(slot) + " does not exist (there are " +
                     std::to_string(kStreamSlots) + ")");
    if (slots_.size() < kStreamSlots)
        slots_.resize(kStreamSlots);
    StreamSlot &s = slots_[slot];
    if (s.stream)
        return &s;
    Device &d = *device_;
    const size_t word = shape_.float64 ? 8 : 4, B = shape_.batch;
    auto stream = d.createStream();
    if (!stream)
        return stream.error();
    s.device = device_;
    s.stream = *stream;
    auto values = d.allocate(size_t{plan_.numSlots} * B * word);
    auto barrier = d.allocate(2 * sizeof(uint32_t));
    auto in = d.allocatePinned(size_t{plan_.numInputs} * B * word);
    auto out = d.allocatePinned(plan_.outputSlots.size() * B * word);
    if (!values)
        return values.error();
    if (!barrier)
        return barrier.error();
    if (!in)
        return in.error();
    if (!out)
        return out.error();
    s.values = std::move(*values);
    s.barrier = std::move(*barrier);
    s.in = std::move(*in);
    s.out = std::move(*out);
    // NaN in every computed slot (all-ones bytes), so a skipped write shows; constants set once.
    const size_t firstOp = plan_.firstComputedSlot;
    if (Status st = d.fill(s.values.ptr() + firstOp * B * word, 0xff,
                           (plan_.numSlots - firstOp) * B * word, s.stream);
        !st)
        return st.error();
    if (Status st = d.fill(s.barrier.ptr(), 0, s.barrier.bytes(), s.stream); !st)
        return st.error();
    if (Status st = uploadConstants(s.values.ptr(), s.stream); !st)
        return st.error();
    s.params = params_;
    s.params.values = s.values.ptr();
    s.params.barrier = s.barrier.ptr();
    s.params.adjoints = 0; // forward only: the backward pass stays on the model's own buffers
    return &s;
}

Result<StreamHandle> CudaModel::slotStream(unsigned slot) {
    auto s = streamSlot(slot);
    if (!s)
        return s.error();
    return (*s)->stream;
}

Status CudaModel::submit(unsigned slot, std::span<const double> xs, size_t count) {
    if (count == 0 || count > shape_.batch)
        return error("a submitted batch holds 1 to " + std::to_string(shape_.batch) +
                     " vectors, got " + std::to_string(count));
    if (Status st = checkBatch(xs, count, plan_.numInputs); !st)
        return st;
    auto got = streamSlot(slot);
    if (!got)
        return got.error();
    StreamSlot &s = **got;
    if (s.count != 0)
        return error("stream slot " + std::to_string(slot) + " is busy: collect it first");
    Device &d = *device_;
    const size_t word = shape_.float64 ? 8 : 4, B = shape_.batch;
    if (Status st = packInputs(xs, 0, count, s.in.data()); !st)
        return st;
    if (s.in.bytes() > 0)
        if (Status st = d.upload(s.values.ptr() + size_t{plan_.inputBase} * B * word, s.in.data(),
                                 s.in.bytes(), s.stream);
            !st)
            return st;
    if (Status st = launchForward(s.params, s.stream); !st)
        return st;
    for (size_t o = 0; o < plan_.outputSlots.size(); ++o)
        if (Status st = d.download(s.out.data() + o * B * word,
                                   s.values.ptr() + size_t{plan_.outputSlots[o]} * B * word,
                                   count * word, s.stream);
            !st)
            return st;
    s.count = count;
    return Ok{};
}

Result<std::vector<double>> CudaModel::collect(unsigned slot) {
    auto got = streamSlot(slot);
    if (!got)
        return got.error();
    StreamSlot &s = **got;
    if (s.count == 0)
        return error("stream slot " + std::to_string(slot) + " has nothing submitted");
    const size_t count = std::exchange(s.count, 0), outs = plan_.outputSlots.size();
    if (Status st = device_->synchronize(s.stream); !st)
        return st.error();
    std::vector<double> result(count * outs);
    for (size_t o = 0; o < outs; ++o)
        for (size_t l = 0; l < count; ++l)
            result[l * outs + o] = unpack(s.out.data(), o * shape_.batch + l);
    return result;
}

Result<std::vector<double>> CudaModel::evaluateStreamed(std::span<const double> xs, size_t count) {
    if (Status st = checkBatch(xs, count, plan_.numInputs); !st)
        return st.error();
    const size_t B = shape_.batch, outs = plan_.outputSlots.size();
    const size_t batches = (count + B - 1) / B;
    std::vector<double> result(count * outs);
    auto take = [&](size_t i) -> Status { // batch i's outputs into the result
        auto r = collect(static_cast<unsigned>(i % kStreamSlots));
        if (!r)
            return r.error();
        std::copy(r->begin(), r->end(), result.begin() + i * B * outs);
        return Ok{};
    };
    for (size_t i = 0; i < batches; ++i) {
        // Slot i % 2 held batch i-2: take it before reusing the slot's buffers.
        if (i >= kStreamSlots)
            if (Status st = take(i - kStreamSlots); !st)
                return st.error();
        const size_t first = i * B, n = std::min(B, count - first);
        if (Status st = submit(static_cast<unsigned>(i % kStreamSlots),
                               xs.subspan(first * plan_.numInputs, n * plan_.numInputs), n);
            !st)
            return st.error();
    }
    for (size_t i = batches > kStreamSlots ? batches - kStreamSlots : 0; i < batches; ++i)
        if (Status st = take(i); !st)
            return st.error();
    return result;
}

} // namespace zbddc::cuda
