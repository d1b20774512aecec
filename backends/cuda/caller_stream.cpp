// A batch on a stream the caller owns: the runtime's asynchronous tasks (runtime/tasks_async.h)
// enqueue their first pass here and return, so the caller can order its own work after ours on
// that stream and poll or wait for an event instead of for the whole device.
#include "backends/cuda/cuda_model.h"

#include <algorithm>
#include <utility>

namespace zbddc::cuda {

EnqueuedBatch &EnqueuedBatch::operator=(EnqueuedBatch &&o) noexcept {
    if (this != &o) {
        this->~EnqueuedBatch();
        device_ = std::exchange(o.device_, nullptr);
        done_ = std::exchange(o.done_, nullptr);
        in_ = std::move(o.in_);
        out_ = std::move(o.out_);
        count_ = std::exchange(o.count_, 0);
        adjoints_ = std::exchange(o.adjoints_, false);
    }
    return *this;
}

EnqueuedBatch::~EnqueuedBatch() {
    if (done_) {
        (void)device_->waitFor(done_); // the copies read and write in_ and out_
        device_->destroyEvent(done_);
    }
    done_ = nullptr;
}

Result<bool> EnqueuedBatch::ready() const {
    if (!done_)
        return error("nothing is enqueued (the batch was moved or its results taken)");
    return device_->reached(done_);
}

Result<EnqueuedBatch> CudaModel::enqueue(std::span<const double> xs, size_t count,
                                         std::optional<size_t> adjointsOf, StreamHandle stream) {
    if (Status st = checkBatch(xs, count, plan_.numInputs); !st)
        return st.error();
    if (adjointsOf && *adjointsOf >= circuit_.numOutputs())
        return error("no output " + std::to_string(*adjointsOf));
    if (adjointsOf && plan_.reusesSlots)
        return error("this model was compiled without backward support (CudaOptions::backward)");
    Device &d = *device_;
    const size_t word = shape_.float64 ? 8 : 4, B = shape_.batch, n = plan_.numInputs;
    const size_t outs = plan_.outputSlots.size(), chunks = (count + B - 1) / B;
    const size_t inWords = n * B, outWords = (outs + (adjointsOf ? n : 0)) * B;
    EnqueuedBatch batch;
    batch.device_ = &d;
    batch.count_ = count;
    batch.adjoints_ = adjointsOf.has_value();
    auto in = d.allocatePinned(chunks * inWords * word);
    if (!in)
        return in.error();
    auto out = d.allocatePinned(chunks * outWords * word);
    if (!out)
        return out.error();
    batch.in_ = std::move(*in);
    batch.out_ = std::move(*out);
    // Every chunk converted before any is enqueued: a failure (a negative input in log space)
    // leaves nothing on the caller's stream.
    for (size_t c = 0; c < chunks; ++c)
        if (Status st = packInputs(xs, c * B, std::min(B, count - c * B),
                                   batch.in_.data() + c * inWords * word);
            !st)
            return st.error();
    PlanParams params = params_; // the kernels take their arguments by value at launch
    if (adjointsOf)
        params.outSlot = plan_.outputSlots[*adjointsOf];
    // One chunk after another in the model's buffers: the stream orders them.
    for (size_t c = 0; c < chunks; ++c) {
        const size_t lanes = std::min(B, count - c * B);
        unsigned char *host = batch.out_.data() + c * outWords * word;
        if (inWords > 0)
            if (Status st = d.upload(values_.ptr() + size_t{plan_.inputBase} * B * word,
                                     batch.in_.data() + c * inWords * word, inWords * word, stream);
                !st)
                return st.error();
        if (Status st = launchSegments(forward_, fwdBlock_, fwdGrid_, params, stream); !st)
            return st.error();
        if (adjointsOf)
            if (Status st = launchSegments(backward_, bwdBlock_, bwdGrid_, params, stream); !st)
                return st.error();
        for (size_t o = 0; o < outs; ++o)
            if (Status st = d.download(host + o * B * word,
                                       values_.ptr() + size_t{plan_.outputSlots[o]} * B * word,
                                       lanes * word, stream);
                !st)
                return st.error();
        // The inputs' adjoints are contiguous slots: one copy, every lane of every input.
        if (adjointsOf && n > 0)
            if (Status st = d.download(host + outs * B * word,
                                       adjoints_.ptr() + size_t{plan_.inputBase} * B * word,
                                       n * B * word, stream);
                !st)
                return st.error();
    }
    auto done = d.createEvent(false);
    if (!done)
        return done.error();
    batch.done_ = *done;
    if (Status st = d.record(batch.done_, stream); !st)
        return st.error();
    return batch;
}

Result<BatchValues> CudaModel::results(EnqueuedBatch &batch) const {
    if (!batch.done_)
        return error("nothing is enqueued (the batch was moved or its results taken)");
    if (Status st = device_->waitFor(batch.done_); !st)
        return st.error();
    const size_t B = shape_.batch, n = plan_.numInputs, outs = plan_.outputSlots.size();
    const size_t outWords = (outs + (batch.adjoints_ ? n : 0)) * B;
    BatchValues v;
    v.outputs.resize(batch.count_ * outs);
    if (batch.adjoints_)
        v.adjoints.resize(batch.count_ * n);
    for (size_t k = 0; k < batch.count_; ++k) {
        const size_t chunk = k / B * outWords, l = k % B;
        for (size_t o = 0; o < outs; ++o)
            v.outputs[k * outs + o] = unpack(batch.out_.data(), chunk + o * B + l);
        if (batch.adjoints_)
            for (size_t i = 0; i < n; ++i)
                v.adjoints[k * n + i] = unpack(batch.out_.data(), chunk + (outs + i) * B + l);
    }
    device_->destroyEvent(std::exchange(batch.done_, nullptr));
    return v;
}

} // namespace zbddc::cuda
