// A batch on a stream the caller owns: the runtime's asynchronous tasks (runtime/tasks_async.h)
// enqueue their first pass here and return, so the caller can order its own work after ours on
// that stream and poll or wait for an event instead of for the whole device.
#include "backends/cuda/cuda_model.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace zbddc::cuda {

EnqueuedBatch &EnqueuedBatch::operator=(EnqueuedBatch &&o) noexcept {
    if (this != &o) {
        finish();
        device_ = std::exchange(o.device_, nullptr);
        done_ = std::exchange(o.done_, nullptr);
        out_ = std::exchange(o.out_, nullptr);
        stagingBusy_ = std::exchange(o.stagingBusy_, nullptr);
        count_ = std::exchange(o.count_, 0);
        chunkBytes_ = std::exchange(o.chunkBytes_, 0);
        adjoints_ = std::exchange(o.adjoints_, false);
        traced_ = std::exchange(o.traced_, false);
    }
    return *this;
}

EnqueuedBatch::~EnqueuedBatch() {
    finish();
}

void EnqueuedBatch::finish() {
    if (done_) {
        (void)device_->waitFor(done_); // the copies read and write the staging
        device_->destroyEvent(std::exchange(done_, nullptr));
    }
    if (stagingBusy_)
        *std::exchange(stagingBusy_, nullptr) = false;
}

Result<bool> EnqueuedBatch::ready() const {
    if (!done_)
        return error("nothing is enqueued (the batch was moved or its results taken)");
    return device_->reached(done_);
}

Result<EnqueuedBatch> CudaModel::enqueue(std::span<const double> xs, size_t count,
                                         std::optional<size_t> adjointsOf, StreamHandle stream,
                                         std::optional<size_t> tracebackOf) {
    if (Status st = checkBatch(xs, count, plan_.numInputs); !st)
        return st.error();
    for (std::optional<size_t> output : {adjointsOf, tracebackOf})
        if (output && *output >= circuit_.numOutputs())
            return error("no output " + std::to_string(*output));
    if (adjointsOf && tracebackOf)
        return error("a batch on a stream computes adjoints or traces back, not both");
    if (adjointsOf && plan_.reusesSlots)
        return error("this model was compiled without backward support (CudaOptions::backward)");
    if (tracebackOf && !traceback_)
        return error("no traceback in " + std::string(semiringName(shape_.semiring)));
    if (tracebackOf)
        if (Status st = uploadTracebackArrays(); !st) // before anything is on the stream
            return st.error();
    if (stagingBusy_)
        return error("a batch enqueued on a stream is still pending on this model: take its "
                     "results first");
    Device &d = *device_;
    const size_t word = shape_.float64 ? 8 : 4, B = shape_.batch, n = plan_.numInputs;
    const size_t outs = plan_.outputSlots.size(), chunks = (count + B - 1) / B;
    const size_t vars = circuit_.variables.size();
    // A chunk's results: its outputs, then the inputs' adjoints or the walks' states and statuses
    // (uint32 words: a row of B per variable, then B statuses).
    const size_t inWords = n * B, outWords = (outs + (adjointsOf ? n : 0)) * B;
    const size_t traceBytes = tracebackOf ? (vars + 1) * B * 4 : 0;
    const size_t chunkBytes = outWords * word + traceBytes;
    const size_t inBytes = chunks * inWords * word, bytes = inBytes + chunks * chunkBytes;
    if (staging_.bytes() < bytes) {
        staging_ = PinnedBuffer(); // the old one first: both might not fit
        auto grown = d.allocatePinned(bytes);
        if (!grown)
            return grown.error();
        staging_ = std::move(*grown);
    }
    unsigned char *in = staging_.data(), *out = staging_.data() + inBytes;
    // Every chunk converted before any is enqueued: a failure (a negative input in log space)
    // leaves nothing on the caller's stream.
    for (size_t c = 0; c < chunks; ++c)
        if (Status st = packInputs(xs, c * B, std::min(B, count - c * B), in + c * inWords * word);
            !st)
            return st.error();
    EnqueuedBatch batch;
    batch.device_ = &d;
    batch.out_ = out;
    batch.count_ = count;
    batch.chunkBytes_ = chunkBytes;
    batch.adjoints_ = adjointsOf.has_value();
    batch.traced_ = tracebackOf.has_value();
    PlanParams params = params_; // the kernels take their arguments by value at launch
    if (adjointsOf)
        params.outSlot = plan_.outputSlots[*adjointsOf];
    // A failure part way: what went on the stream still reads and writes the staging.
    auto abandon = [&](const Status &st) -> Result<EnqueuedBatch> {
        (void)d.synchronize(stream);
        return st.error();
    };
    inputsHoldShared_ = false; // the chunks' inputs overwrite the shared ones
    // One chunk after another in the model's buffers: the stream orders them.
    for (size_t c = 0; c < chunks; ++c) {
        const size_t lanes = std::min(B, count - c * B);
        unsigned char *host = out + c * chunkBytes;
        if (inWords > 0)
            if (Status st = d.upload(values_.ptr() + size_t{plan_.inputBase} * B * word,
                                     in + c * inWords * word, inWords * word, stream);
                !st)
                return abandon(st);
        if (Status st = launchForward(params, stream); !st)
            return abandon(st);
        if (adjointsOf)
            if (Status st = launchBackward(params, stream); !st)
                return abandon(st);
        if (tracebackOf)
            if (Status st = launchTraceback(plan_.outputSlots[*tracebackOf], lanes, stream); !st)
                return abandon(st);
        for (size_t o = 0; o < outs; ++o)
            if (Status st = d.download(host + o * B * word,
                                       values_.ptr() + size_t{plan_.outputSlots[o]} * B * word,
                                       lanes * word, stream);
                !st)
                return abandon(st);
        // The inputs' adjoints are contiguous slots: one copy, every lane of every input.
        if (adjointsOf && n > 0)
            if (Status st = d.download(host + outs * B * word,
                                       adjoints_.ptr() + size_t{plan_.inputBase} * B * word,
                                       n * B * word, stream);
                !st)
                return abandon(st);
        unsigned char *trace = host + outWords * word;
        if (tracebackOf && vars > 0)
            if (Status st = d.download(trace, traced_->states.ptr(), vars * B * 4, stream); !st)
                return abandon(st);
        if (tracebackOf)
            if (Status st = d.download(trace + vars * B * 4, traced_->status.ptr(), B * 4, stream);
                !st)
                return abandon(st);
    }
    auto done = d.createEvent(false);
    if (!done)
        return abandon(done.error());
    batch.done_ = *done;
    stagingBusy_ = true;
    batch.stagingBusy_ = &stagingBusy_;
    if (Status st = d.record(batch.done_, stream); !st)
        return abandon(st);
    return batch;
}

Result<BatchValues> CudaModel::results(EnqueuedBatch &batch) const {
    if (!batch.done_)
        return error("nothing is enqueued (the batch was moved or its results taken)");
    if (Status st = device_->waitFor(batch.done_); !st)
        return st.error();
    const size_t B = shape_.batch, n = plan_.numInputs, outs = plan_.outputSlots.size();
    const size_t vars = circuit_.variables.size(), count = batch.count_;
    BatchValues v;
    v.outputs.resize(count * outs);
    if (batch.adjoints_)
        v.adjoints.resize(count * n);
    if (batch.traced_) {
        v.traced.emplace();
        v.traced->states.resize(count * vars);
        v.traced->traced.resize(count);
        if (tiesTold())
            v.traced->tied.resize(count);
    }
    const size_t word = shape_.float64 ? 8 : 4;
    for (size_t first = 0; first < count; first += B) { // a launch's chunk at a time
        const unsigned char *chunk = batch.out_ + first / B * batch.chunkBytes_;
        const size_t lanes = std::min(B, count - first);
        unpackRows(chunk, outs, first, lanes, v.outputs);
        if (batch.adjoints_)
            unpackRows(chunk + outs * B * word, n, first, lanes, v.adjoints);
        if (batch.traced_) {
            std::vector<uint32_t> words((vars + 1) * B);
            std::memcpy(words.data(), chunk + outs * B * word, words.size() * 4);
            unpackTraced(words.data(), first, lanes, *v.traced);
        }
    }
    if (batch.traced_)
        v.traced->outputs = v.outputs;
    batch.finish();
    return v;
}

} // namespace zbddc::cuda
